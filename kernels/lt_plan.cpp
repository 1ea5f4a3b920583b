#include "kernels/lt_plan.h"

namespace pl::cuda {
namespace {

using experiment::AccumKind;

bool is_fp8(DType t) { return t == DType::float8_e4m3fn || t == DType::float8_e5m2; }

// Dtypes whose values are all float32 numbers (what sgemm reads on the CPU).
bool fits_float32(DType t) {
  if (t == DType::float64 || t == DType::int64 || t == DType::uint64 || t == DType::int32 || t == DType::uint32)
    return false;
  return is_float(t) ? info(t).format.precision() <= 24 : true;
}

LtPlan make(Element in, Element w, Element out, LtCompute c, size_t align = 1, int cc = 0) {
  LtPlan p{in, w, out, c, align, cc, false, true, ""};
  p.label =
      std::string(element_name(in)) + " x " + element_name(w) + " -> " + element_name(out) + ", " + lt_compute_name(c);
  return p;
}

}  // namespace

const char* lt_compute_name(LtCompute c) {
  static const char* const names[] = {"CUBLAS_COMPUTE_64F",           "CUBLAS_COMPUTE_32F_PEDANTIC",
                                      "CUBLAS_COMPUTE_32F_FAST_TF32", "CUBLAS_COMPUTE_32F",
                                      "CUBLAS_COMPUTE_16F",           "CUBLAS_COMPUTE_32I"};
  return names[static_cast<int>(c)];
}

Expected<LtPlan> plan_library_product(const ProductSpec& s) {
  const auto& acc = s.accumulate;
  const DType a = s.a, b = s.b;
  if (acc.kind == AccumKind::Int32) {
    if (a == DType::int8 && b == DType::int8) return make(Element::I8, Element::I8, Element::I32, LtCompute::I32, 16);
    return Error{"cuBLASLt's integer GEMM takes signed int8 x int8 (" + std::string(name(a)) + " x " +
                 std::string(name(b)) + " runs on the CPU)"};
  }
  if (acc.kind != AccumKind::Blas) return Error{"not a library product"};
  if (acc.rounding != Rounding::NearestEven) return Error{"cuBLASLt rounds to nearest even only"};
  if (acc.format == DType::float64) return make(Element::F64, Element::F64, Element::F64, LtCompute::F64);
  if (acc.format == DType::float16) {
    if (a == DType::float16 && b == DType::float16)
      return make(Element::F16, Element::F16, Element::F16, LtCompute::F16);
    return Error{"float16 accumulation (CUBLAS_COMPUTE_16F) takes float16 x float16"};
  }
  if (acc.format != DType::float32) return Error{"cuBLASLt accumulates in float64, float32, float16 or int32"};
  if (a == b) {
    switch (a) {
      case DType::float32: return make(Element::F32, Element::F32, Element::F32, LtCompute::F32Pedantic);
      case DType::tf32: return make(Element::F32, Element::F32, Element::F32, LtCompute::F32FastTf32);
      case DType::float16: return make(Element::F16, Element::F16, Element::F32, LtCompute::F32);
      case DType::bfloat16: return make(Element::BF16, Element::BF16, Element::F32, LtCompute::F32);
      default: break;
    }
  }
  if (is_fp8(a) && is_fp8(b)) {
    if (a == DType::float8_e5m2 && b == DType::float8_e5m2)
      return Error{"cuBLASLt has no float8_e5m2 x float8_e5m2 GEMM (one operand must be e4m3)"};
    LtPlan p = make(*library_element(a), *library_element(b), Element::F32, LtCompute::F32, 16, 89);
    p.fast_accumulation = s.fast_accumulation;
    if (p.fast_accumulation) p.label += ", fast accumulation";
    return p;
  }
  if (fits_float32(a) && fits_float32(b)) {
    LtPlan p = make(Element::F32, Element::F32, Element::F32, LtCompute::F32Pedantic);
    p.native = false;
    p.label += " (" + std::string(name(a)) + " x " + std::string(name(b)) + " values as float32)";
    return p;
  }
  return Error{std::string(name(a)) + " x " + std::string(name(b)) +
               ": values wider than float32 need float64 accumulation"};
}

}  // namespace pl::cuda
