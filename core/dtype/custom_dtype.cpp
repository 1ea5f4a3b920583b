#include "core/dtype/custom_dtype.h"

#include <array>
#include <atomic>
#include <mutex>

#include "core/dtype/format_lookup.h"

namespace pl {
namespace {

// One registered format. Its strings live here, so the row's string_views stay valid for
// the life of the process (a slot is written once, before its id is published).
struct Slot {
  std::string name, defined_by;
  DTypeInfo row{};
};

struct Registry {
  std::mutex writing;
  std::atomic<int> count{0};  // slots [0, count) are written and never change again
  std::array<Slot, kCustomDTypeCapacity> slots;
};

Registry& registry() {
  static Registry r;
  return r;
}

// Bits one element takes in memory: the smallest byte-multiple power of two that holds it.
int storage_bits(const FloatFormat& f) {
  int bits = 8;
  while (bits < f.total_bits()) bits *= 2;
  return bits;
}

std::string specials_text(Specials s) {
  switch (s) {
    case Specials::IEEE: return "IEEE 754 specials (Inf and NaN in the top binade)";
    case Specials::FN: return "no Inf, NaN only at all ones (as OCP OFP8 E4M3)";
    case Specials::FNUZ: return "no Inf and no -0, NaN at the -0 code (as Graphcore fp8)";
    case Specials::None: return "every code a finite number (as OCP MX FP6/FP4)";
    case Specials::E8M0: return "unsigned powers of two, all ones NaN (as OCP MX E8M0)";
  }
  return "?";
}

// "e5m7": the start of both names. (Built by appending: GCC 12 warns, falsely, of an overlap
// in "e" + std::to_string(...).)
std::string exponent_and_mantissa(const FloatFormat& f) {
  std::string s("e");
  s.append(std::to_string(f.exponent_bits)).append("m").append(std::to_string(f.mantissa_bits));
  return s;
}

}  // namespace

bool is_custom(DType t) { return custom_info(t) != nullptr; }

const DTypeInfo* custom_info(DType t) {
  const int slot = static_cast<int>(t) - kFirstCustomDType;
  Registry& r = registry();
  if (slot < 0 || slot >= r.count.load(std::memory_order_acquire)) return nullptr;
  return &r.slots[static_cast<size_t>(slot)].row;
}

Expected<DType> custom_dtype(const FloatFormat& f) {
  for (const DTypeInfo& row : all_dtypes())
    if (row.kind == DTypeKind::Float && row.format == f) return row.id;
  if (auto valid = make_custom_format(f.exponent_bits, f.mantissa_bits, f.bias, f.specials); !valid)
    return Error{valid.error()};
  // (Its name would not parse back: the one scale format is the table's float8_e8m0fnu.)
  if (f.specials == Specials::E8M0) return Error{"a custom format cannot have e8m0 specials; use float8_e8m0fnu"};
  Registry& r = registry();
  std::lock_guard lock(r.writing);
  const int n = r.count.load(std::memory_order_relaxed);
  for (int i = 0; i < n; ++i)
    if (r.slots[static_cast<size_t>(i)].row.format == f) return r.slots[static_cast<size_t>(i)].row.id;
  if (n == kCustomDTypeCapacity)
    return Error{"too many custom formats in one session (" + std::to_string(kCustomDTypeCapacity) +
                 "); restart to name new ones"};
  Slot& s = r.slots[static_cast<size_t>(n)];
  s.name = custom_format_name(f);
  s.defined_by = "custom format: " + std::string(f.is_signed() ? "1 sign bit, " : "no sign bit, ") +
                 std::to_string(f.exponent_bits) + " exponent bits (bias " + std::to_string(f.bias) + "), " +
                 std::to_string(f.mantissa_bits) + " mantissa bits; " + specials_text(f.specials);
  const DType id = static_cast<DType>(kFirstCustomDType + n);
  s.row = DTypeInfo{id, s.name, DTypeKind::Float, storage_bits(f), f, "", s.defined_by};
  r.count.store(n + 1, std::memory_order_release);
  return id;
}

std::vector<DType> custom_dtypes() {
  std::vector<DType> out;
  const int n = registry().count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) out.push_back(static_cast<DType>(kFirstCustomDType + i));
  return out;
}

std::string custom_format_name(const FloatFormat& f) {
  std::string s = exponent_and_mantissa(f);
  s.append("b").append(std::to_string(f.bias)).append(":").append(specials_name(f.specials));
  return s;
}

std::string custom_format_short_name(const FloatFormat& f) {
  std::string s = exponent_and_mantissa(f);
  if (f.bias != default_custom_bias(f.exponent_bits)) s.append("b").append(std::to_string(f.bias));
  if (f.specials != Specials::IEEE) s.append(":").append(specials_name(f.specials));
  return s;
}

}  // namespace pl
