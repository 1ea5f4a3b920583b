#include "kernels/operand_pack.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>

#include "core/dtype/codec.h"
#include "core/util/parallel.h"

namespace pl::cuda {
namespace {

// The dtype whose codec stores an element type's bits (float formats of 8 and 16 bits).
DType codec_dtype(Element e) {
  switch (e) {
    case Element::F16: return DType::float16;
    case Element::BF16: return DType::bfloat16;
    case Element::E4M3: return DType::float8_e4m3fn;
    default: return DType::float8_e5m2;
  }
}

bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// The bfloat16 or float16 code of v when v is exactly such a number, from its float32 bits
// (every number of both is a float32): the codec's encode per element made packing a 4096^2
// operand take 0.2 s on an H100's host. NaN is left to the codec (false).
bool half_code(double v, Element e, uint16_t* code) {
  const float x = static_cast<float>(v);
  if (!(x == v)) return false;  // not a float32, or NaN
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  const uint32_t sign = bits >> 16 & 0x8000, mag = bits & 0x7FFFFFFF;
  if (e == Element::BF16) {
    if (bits & 0xFFFF) return false;
    *code = static_cast<uint16_t>(bits >> 16);
    return true;
  }
  if (mag == 0x7F800000) {  // infinity
    *code = static_cast<uint16_t>(sign | 0x7C00);
    return true;
  }
  const int exp = static_cast<int>(mag >> 23) - 127;
  if (mag == 0 || exp < -14) {                    // zero or a float16 subnormal: a multiple of 2^-24 below 2^-14
    const float scaled = std::fabs(x) * 0x1p24f;  // exact: a power-of-two scaling
    if (scaled != std::floor(scaled)) return false;
    *code = static_cast<uint16_t>(sign | static_cast<uint32_t>(scaled));
    return true;
  }
  if (exp > 15 || (mag & 0x1FFF)) return false;  // past 65504, or more than 11 significant bits
  *code = static_cast<uint16_t>(sign | static_cast<uint32_t>(exp + 15) << 10 | (mag >> 13 & 0x3FF));
  return true;
}

// The float8 code of v when v is exactly such a number: its code read off v's float32 bits
// (every float8 number is a float32) and accepted only when the codec's own decoding of that
// code gives v back bit for bit (-0 included); anything else -- NaN, a value between two codes,
// past the range -- is left to the codec (false). Encoding each element through the codec took
// most of a float8 operand's packing.
class ByteCodes {
 public:
  explicit ByteCodes(const FloatFormat& f) : f_(f) {
    for (uint32_t c = 0; c < 256; ++c) decoded_[c] = decode(f, c);
  }
  bool code(double v, uint8_t* out) const {
    const float x = static_cast<float>(v);
    if (!(x == v)) return false;  // not a float32, or NaN
    uint32_t bits;
    std::memcpy(&bits, &x, 4);
    const uint32_t sign = bits >> 31, mag = bits & 0x7FFFFFFF;
    const int m = f_.mantissa_bits, exp = static_cast<int>(mag >> 23) - 127;
    uint32_t c = 0;
    if (mag == 0) {
      c = 0;
    } else if (exp >= f_.emin()) {
      if (mag & ((1u << (23 - m)) - 1)) return false;  // more significant bits than the format's
      c = static_cast<uint32_t>(exp + f_.bias) << m | (mag >> (23 - m) & ((1u << m) - 1));
    } else {  // a subnormal of the format: a whole number of its smallest steps
      const float steps = std::ldexp(std::fabs(x), m - f_.emin());
      if (steps != std::floor(steps) || steps >= float(1u << m)) return false;
      c = static_cast<uint32_t>(steps);
    }
    c |= sign << 7;
    if (c > 0xFF || std::memcmp(&decoded_[c], &v, sizeof v) != 0) return false;
    *out = static_cast<uint8_t>(c);
    return true;
  }

 private:
  const FloatFormat& f_;
  double decoded_[256];
};

}  // namespace

size_t element_bytes(Element e) {
  switch (e) {
    case Element::F64: return 8;
    case Element::F32:
    case Element::I32: return 4;
    case Element::F16:
    case Element::BF16: return 2;
    default: return 1;
  }
}

const char* element_name(Element e) {
  static const char* const names[] = {"f64", "f32", "f16", "bf16", "e4m3", "e5m2", "i8", "i32"};
  return names[static_cast<int>(e)];
}

Expected<Element> library_element(DType t) {
  switch (t) {
    case DType::float64: return Element::F64;
    case DType::float32:
    case DType::tf32: return Element::F32;
    case DType::float16: return Element::F16;
    case DType::bfloat16: return Element::BF16;
    case DType::float8_e4m3fn: return Element::E4M3;
    case DType::float8_e5m2: return Element::E5M2;
    case DType::int8: return Element::I8;
    default: return Error{std::string(name(t)) + " has no storage type in cuBLASLt"};
  }
}

Expected<PackedRows> pack_rows(std::span<const double> values, size_t rows, size_t cols, size_t ld, Element e) {
  if (values.size() != rows * cols || ld < cols) return Error{"pack_rows: shape does not fit"};
  const size_t width = element_bytes(e);
  // (Uninitialised: each row's elements and padding are written below, on every core.)
  PackedRows p{e, rows, cols, ld, NoInitVector<uint8_t>(rows * ld * width)};
  std::atomic<size_t> bad_index{SIZE_MAX};
  const FloatFormat* f = (e == Element::F16 || e == Element::BF16 || e == Element::E4M3 || e == Element::E5M2)
                             ? &info(codec_dtype(e)).format
                             : nullptr;
  std::optional<ByteCodes> bytes;
  if (width == 1 && f) bytes.emplace(*f);
  parallel_for(
      rows, 0,
      [&](size_t r0, size_t r1) {
        if (ld > cols)
          for (size_t r = r0; r < r1; ++r)
            std::memset(p.bytes.data() + (r * ld + cols) * width, 0, (ld - cols) * width);
        if (e == Element::F64) {  // every double is one: whole rows at once
          for (size_t r = r0; r < r1; ++r) std::memcpy(p.bytes.data() + r * ld * 8, values.data() + r * cols, cols * 8);
          return;
        }
        for (size_t r = r0; r < r1; ++r)
          for (size_t c = 0; c < cols; ++c) {
            const double v = values[r * cols + c];
            uint8_t* out = p.bytes.data() + (r * ld + c) * width;
            bool exact = true;
            if (e == Element::F32 || e == Element::I32) {  // (float64 rows were copied whole above)
              if (e == Element::I32) {
                exact = v == std::nearbyint(v) && v >= -2147483648.0 && v <= 2147483647.0;
                const int32_t x = exact ? static_cast<int32_t>(v) : 0;
                std::memcpy(out, &x, 4);
              } else {
                const float x = static_cast<float>(v);
                exact = same_value(x, v);
                std::memcpy(out, &x, 4);
              }
            } else if (e == Element::I8) {
              exact = v == std::nearbyint(v) && v >= -128 && v <= 127;
              const int8_t x = exact ? static_cast<int8_t>(v) : 0;
              std::memcpy(out, &x, 1);
            } else if (uint16_t half; width == 2 && half_code(v, e, &half)) {
              std::memcpy(out, &half, 2);
            } else if (bytes && bytes->code(v, out)) {
              // (the code, checked against the codec's decoding)
            } else {
              const uint64_t code = encode(*f, v, CastOptions{}).code;
              exact = same_value(decode(*f, code), v);
              std::memcpy(out, &code, width);  // little-endian: the low bytes hold the code
            }
            if (!exact) {
              size_t expected = SIZE_MAX;
              bad_index.compare_exchange_strong(expected, r * cols + c);
            }
          }
      },
      /*min_chunk=*/16);
  if (const size_t i = bad_index.load(); i != SIZE_MAX) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", values[i]);
    return Error{std::string("value ") + buf + " (element " + std::to_string(i) + ") is not a " + element_name(e) +
                 " number"};
  }
  return p;
}

std::vector<double> unpack_rows(const uint8_t* bytes, size_t rows, size_t cols, size_t ld, Element e) {
  std::vector<double> out(rows * cols);
  const size_t width = element_bytes(e);
  // On every core: one thread took 80-180 ms for a 4096^2 result on an H100's host.
  parallel_for(
      rows, 0,
      [&](size_t r0, size_t r1) {
        if (e == Element::F64) {
          for (size_t r = r0; r < r1; ++r) std::memcpy(out.data() + r * cols, bytes + r * ld * 8, cols * 8);
          return;
        }
        for (size_t r = r0; r < r1; ++r)
          for (size_t c = 0; c < cols; ++c) {
            const uint8_t* in = bytes + (r * ld + c) * width;
            double v = 0;
            switch (e) {  // (float64 rows were copied whole above)
              case Element::F32: {
                float x;
                std::memcpy(&x, in, 4);
                v = x;
                break;
              }
              case Element::I32: {
                int32_t x;
                std::memcpy(&x, in, 4);
                v = x;
                break;
              }
              case Element::I8: v = static_cast<int8_t>(in[0]); break;
              default: {
                uint64_t code = 0;
                std::memcpy(&code, in, width);
                v = decode(info(codec_dtype(e)).format, code);
              }
            }
            out[r * cols + c] = v;
          }
      },
      rows_worth_a_thread(cols));
  return out;
}

}  // namespace pl::cuda
