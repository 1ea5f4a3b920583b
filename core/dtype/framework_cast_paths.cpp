#include "core/dtype/framework_cast_paths.h"

#include <vector>

namespace pl {
namespace {

constexpr CastPath kVia = CastPath::ViaFloat32, kOnce = CastPath::Direct;

// Recorded with torch 2.15.0 and numpy 2.4.6 and ml_dtypes 0.6.0 (PyPI), and with Debian 12's
// python3-torch 1.13.1 and python3-numpy 1.24.2. PyTorch builds c10::Half, BFloat16 and the
// Float8 types from float, and ml_dtypes converts a double through float; NumPy's own
// npy_double_to_half rounds once.
constexpr FrameworkCastPath kPaths[] = {
    {"PyTorch", "2.15", DType::float16, kVia},
    {"PyTorch", "2.15", DType::bfloat16, kVia},
    {"PyTorch", "2.15", DType::float8_e4m3fn, kVia},
    {"PyTorch", "2.15", DType::float8_e5m2, kVia},
    {"PyTorch", "2.15", DType::float8_e4m3fnuz, kVia},
    {"PyTorch", "2.15", DType::float8_e5m2fnuz, kVia},
    {"PyTorch", "1.13", DType::float16, kVia},
    {"PyTorch", "1.13", DType::bfloat16, kVia},
    {"NumPy", "2.4", DType::float16, kOnce},
    {"NumPy", "1.24", DType::float16, kOnce},
    {"ml_dtypes", "0.6.0", DType::bfloat16, kVia},
    {"ml_dtypes", "0.6.0", DType::float8_e4m3fn, kVia},
    {"ml_dtypes", "0.6.0", DType::float8_e5m2, kVia},
    {"ml_dtypes", "0.6.0", DType::float8_e4m3fnuz, kVia},
    {"ml_dtypes", "0.6.0", DType::float8_e5m2fnuz, kVia},
    {"ml_dtypes", "0.6.0", DType::float8_e4m3, kVia},
    {"ml_dtypes", "0.6.0", DType::float8_e3m4, kVia},
    {"ml_dtypes", "0.6.0", DType::float6_e2m3fn, kVia},
    {"ml_dtypes", "0.6.0", DType::float6_e3m2fn, kVia},
    {"ml_dtypes", "0.6.0", DType::float4_e2m1fn, kVia},
};

// "PyTorch 2.15 and 1.13, ml_dtypes 0.6.0": each framework once, its releases joined.
std::string who(DType to, CastPath path) {
  std::vector<std::string> parts;
  std::string_view last;
  for (const FrameworkCastPath& p : kPaths) {
    if (p.to != to || p.path != path) continue;
    if (p.framework == last) {
      parts.back().append(" and ").append(p.release);
    } else {
      parts.push_back(std::string(p.framework) + " " + std::string(p.release));
      last = p.framework;
    }
  }
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s;
}

}  // namespace

std::span<const FrameworkCastPath> framework_cast_paths() { return kPaths; }

std::string cast_path_attribution(DType to) {
  const std::string twice = who(to, kVia), once = who(to, kOnce);
  std::string s;
  if (!twice.empty()) s = twice + " round twice, through float32";
  if (!once.empty()) s += (s.empty() ? "" : "; ") + once + " round once";
  return s;
}

}  // namespace pl
