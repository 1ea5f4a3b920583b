// The dtype table. One row per format, indexed by the stable DType id.
// Limits are derived (float_format.h); the comments show their arithmetic so a
// reader can check them without running anything.
#include "core/dtype/dtype.h"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

#include "core/dtype/custom_dtype.h"

namespace pl {
namespace {

constexpr FloatFormat kNoFloat{0, 0, 0, Specials::None};

// clang-format off: the table reads best as aligned columns.
// clang-format off
constexpr std::array<DTypeInfo, kDTypeCount> kTable = {{
  // IEEE 754-2019 binary64. max = (2 - 2^-52) * 2^1023 ~ 1.797e308
  {DType::float64, "float64", DTypeKind::Float, 64, {11, 52, 1023, Specials::IEEE},
   "double f64 fp64", "IEEE 754-2019 binary64"},
  // IEEE 754-2019 binary32. max = (2 - 2^-23) * 2^127 ~ 3.403e38
  {DType::float32, "float32", DTypeKind::Float, 32, {8, 23, 127, Specials::IEEE},
   "float single f32 fp32", "IEEE 754-2019 binary32"},
  // NVIDIA TensorFloat-32: float32's range with float16's 10-bit mantissa; stored as a float32
  // whose low 13 bits are zero. No framework has it as a dtype; it is a matmul mode.
  // max = (2 - 2^-10) * 2^127 ~ 3.401e38
  {DType::tf32, "tf32", DTypeKind::Float, 32, {8, 10, 127, Specials::IEEE},
   "tensorfloat32 tensorfloat-32", "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020)"},
  // IEEE 754-2019 binary16. max = (2 - 2^-10) * 2^15 = 65504
  {DType::float16, "float16", DTypeKind::Float, 16, {5, 10, 15, Specials::IEEE},
   "half f16 fp16", "IEEE 754-2019 binary16"},
  // Google brain float: float32's top 16 bits. max = (2 - 2^-7) * 2^127 ~ 3.390e38
  {DType::bfloat16, "bfloat16", DTypeKind::Float, 16, {8, 7, 127, Specials::IEEE},
   "bf16", "Google Cloud TPU bfloat16 format; Intel BF16 whitepaper (2018)"},
  // OCP OFP8 E4M3: no Inf, NaN only at S.1111.111. max = (1 + 0b110 * 2^-3) * 2^(0b1111 - 7) = 448
  {DType::float8_e4m3fn, "float8_e4m3fn", DTypeKind::Float, 8, {4, 3, 7, Specials::FN},
   "e4m3fn fp8_e4m3fn", "OCP 8-bit Floating Point Specification (OFP8) rev 1.0, 2023"},
  // OCP OFP8 E5M2: IEEE-like. max = (1 + 0b11 * 2^-2) * 2^(0b11110 - 15) = 57344
  {DType::float8_e5m2, "float8_e5m2", DTypeKind::Float, 8, {5, 2, 15, Specials::IEEE},
   "e5m2 fp8_e5m2", "OCP 8-bit Floating Point Specification (OFP8) rev 1.0, 2023"},
  // Graphcore/AMD E4M3 with bias 8, NaN = 0x80, no -0. max = (1 + 0b111 * 2^-3) * 2^(0b1111 - 8) = 240
  {DType::float8_e4m3fnuz, "float8_e4m3fnuz", DTypeKind::Float, 8, {4, 3, 8, Specials::FNUZ},
   "e4m3fnuz", "Noune et al., 8-bit Numerical Formats for Deep Neural Networks, arXiv:2206.02915"},
  // Graphcore/AMD E5M2 with bias 16. max = (1 + 0b11 * 2^-2) * 2^(0b11111 - 16) = 57344
  {DType::float8_e5m2fnuz, "float8_e5m2fnuz", DTypeKind::Float, 8, {5, 2, 16, Specials::FNUZ},
   "e5m2fnuz", "Noune et al., 8-bit Numerical Formats for Deep Neural Networks, arXiv:2206.02915"},
  // IEEE-754-style E4M3 (has Inf and NaN). max = (1 + 0b111 * 2^-3) * 2^(0b1110 - 7) = 240
  {DType::float8_e4m3, "float8_e4m3", DTypeKind::Float, 8, {4, 3, 7, Specials::IEEE},
   "e4m3", "IEEE 754-2019 rules applied to 1/4/3 bits (ml_dtypes float8_e4m3)"},
  // IEEE-754-style E3M4. max = (1 + 0b1111 * 2^-4) * 2^(0b110 - 3) = 15.5
  {DType::float8_e3m4, "float8_e3m4", DTypeKind::Float, 8, {3, 4, 3, Specials::IEEE},
   "e3m4", "IEEE 754-2019 rules applied to 1/3/4 bits (ml_dtypes float8_e3m4)"},
  // E4M3 with bias 11, fnuz specials. max = (1 + 0b111 * 2^-3) * 2^(0b1111 - 11) = 30
  {DType::float8_e4m3b11fnuz, "float8_e4m3b11fnuz", DTypeKind::Float, 8,
   {4, 3, 11, Specials::FNUZ}, "e4m3b11fnuz",
   "E4M3 with exponent bias 11, no Inf, NaN at 0x80 (ml_dtypes float8_e4m3b11fnuz, LLVM Float8E4M3B11FNUZ)"},
  // OCP MX E8M0 scale: 2^(e - 127), e = 0..254; 0xFF is NaN. max = 2^(254 - 127) = 2^127
  {DType::float8_e8m0fnu, "float8_e8m0fnu", DTypeKind::Float, 8, {8, 0, 127, Specials::E8M0},
   "e8m0fnu e8m0", "OCP Microscaling Formats (MX) Specification v1.0, section 5.4.1"},
  // OCP MX FP6 E2M3: all codes finite. max = (1 + 0b111 * 2^-3) * 2^(0b11 - 1) = 7.5
  {DType::float6_e2m3fn, "float6_e2m3fn", DTypeKind::Float, 8, {2, 3, 1, Specials::None},
   "e2m3fn fp6_e2m3", "OCP Microscaling Formats (MX) Specification v1.0, section 5.3.2"},
  // OCP MX FP6 E3M2: all codes finite. max = (1 + 0b11 * 2^-2) * 2^(0b111 - 3) = 28
  {DType::float6_e3m2fn, "float6_e3m2fn", DTypeKind::Float, 8, {3, 2, 3, Specials::None},
   "e3m2fn fp6_e3m2", "OCP Microscaling Formats (MX) Specification v1.0, section 5.3.2"},
  // OCP MX FP4 E2M1: all codes finite. max = (1 + 0b1 * 2^-1) * 2^(0b11 - 1) = 6
  {DType::float4_e2m1fn, "float4_e2m1fn", DTypeKind::Float, 8, {2, 1, 1, Specials::None},
   "e2m1fn fp4 fp4_e2m1 nvfp4_element", "OCP Microscaling Formats (MX) Specification v1.0, section 5.3.3"},
  {DType::bool_, "bool", DTypeKind::Bool, 8, kNoFloat, "bool_ boolean", "C++ bool / numpy.bool_"},
  {DType::int8, "int8", DTypeKind::SignedInt, 8, kNoFloat, "i8 byte", "two's complement"},
  {DType::uint8, "uint8", DTypeKind::UnsignedInt, 8, kNoFloat, "u8 ubyte", "unsigned binary"},
  {DType::int16, "int16", DTypeKind::SignedInt, 16, kNoFloat, "i16 short", "two's complement"},
  {DType::uint16, "uint16", DTypeKind::UnsignedInt, 16, kNoFloat, "u16", "unsigned binary"},
  {DType::int32, "int32", DTypeKind::SignedInt, 32, kNoFloat, "i32 int", "two's complement"},
  {DType::uint32, "uint32", DTypeKind::UnsignedInt, 32, kNoFloat, "u32", "unsigned binary"},
  {DType::int64, "int64", DTypeKind::SignedInt, 64, kNoFloat, "i64 long", "two's complement"},
  {DType::uint64, "uint64", DTypeKind::UnsignedInt, 64, kNoFloat, "u64", "unsigned binary"},
  // Complex rows carry one component's format (real and imaginary parts are IEEE floats).
  {DType::complex64, "complex64", DTypeKind::Complex, 64, {8, 23, 127, Specials::IEEE},
   "cfloat c64", "two IEEE 754 binary32"},
  {DType::complex128, "complex128", DTypeKind::Complex, 128, {11, 52, 1023, Specials::IEEE},
   "cdouble c128", "two IEEE 754 binary64"},
  {DType::complex32, "complex32", DTypeKind::Complex, 32, {5, 10, 15, Specials::IEEE},
   "chalf c32", "two IEEE 754 binary16"},
  {DType::bcomplex32, "bcomplex32", DTypeKind::Complex, 32, {8, 7, 127, Specials::IEEE},
   "", "two bfloat16 (Google Brain bfloat16)"},
  // Four-bit integers as ml_dtypes and PyTorch hold them: one value a byte. -8..7 and 0..15.
  {DType::int4, "int4", DTypeKind::SignedInt, 8, kNoFloat, "", "two's complement, 4 bits (ml_dtypes int4)", 4},
  {DType::uint4, "uint4", DTypeKind::UnsignedInt, 8, kNoFloat, "", "unsigned binary, 4 bits (ml_dtypes uint4)", 4},
}};

constexpr std::array<FrameworkNames, kDTypeCount> kFrameworkNames = {{
  {"torch.float64", "numpy.float64", "jnp.float64", "tf.float64"},
  {"torch.float32", "numpy.float32", "jnp.float32", "tf.float32"},
  {"", "", "", ""},  // tf32 is a matmul mode (torch.backends.cuda.matmul.allow_tf32), not a dtype
  {"torch.float16", "numpy.float16", "jnp.float16", "tf.float16"},
  {"torch.bfloat16", "ml_dtypes.bfloat16", "jnp.bfloat16", "tf.bfloat16"},
  {"torch.float8_e4m3fn", "ml_dtypes.float8_e4m3fn", "jnp.float8_e4m3fn", "tf.dtypes.experimental.float8_e4m3fn"},
  {"torch.float8_e5m2", "ml_dtypes.float8_e5m2", "jnp.float8_e5m2", "tf.dtypes.experimental.float8_e5m2"},
  {"torch.float8_e4m3fnuz", "ml_dtypes.float8_e4m3fnuz", "jnp.float8_e4m3fnuz", "tf.dtypes.experimental.float8_e4m3fnuz"},
  {"torch.float8_e5m2fnuz", "ml_dtypes.float8_e5m2fnuz", "jnp.float8_e5m2fnuz", "tf.dtypes.experimental.float8_e5m2fnuz"},
  {"", "ml_dtypes.float8_e4m3", "jnp.float8_e4m3", ""},
  {"", "ml_dtypes.float8_e3m4", "jnp.float8_e3m4", ""},
  {"", "ml_dtypes.float8_e4m3b11fnuz", "jnp.float8_e4m3b11fnuz", "tf.dtypes.experimental.float8_e4m3b11fnuz"},
  {"torch.float8_e8m0fnu", "ml_dtypes.float8_e8m0fnu", "jnp.float8_e8m0fnu", ""},
  {"", "ml_dtypes.float6_e2m3fn", "jnp.float6_e2m3fn", ""},
  {"", "ml_dtypes.float6_e3m2fn", "jnp.float6_e3m2fn", ""},
  // PyTorch stores fp4 only packed two to a byte, as torch.float4_e2m1fn_x2.
  {"torch.float4_e2m1fn_x2", "ml_dtypes.float4_e2m1fn", "jnp.float4_e2m1fn", "tf.dtypes.experimental.float4_e2m1fn"},
  {"torch.bool", "numpy.bool_", "jnp.bool_", "tf.bool"},
  {"torch.int8", "numpy.int8", "jnp.int8", "tf.int8"},
  {"torch.uint8", "numpy.uint8", "jnp.uint8", "tf.uint8"},
  {"torch.int16", "numpy.int16", "jnp.int16", "tf.int16"},
  {"torch.uint16", "numpy.uint16", "jnp.uint16", "tf.uint16"},
  {"torch.int32", "numpy.int32", "jnp.int32", "tf.int32"},
  {"torch.uint32", "numpy.uint32", "jnp.uint32", "tf.uint32"},
  {"torch.int64", "numpy.int64", "jnp.int64", "tf.int64"},
  {"torch.uint64", "numpy.uint64", "jnp.uint64", "tf.uint64"},
  {"torch.complex64", "numpy.complex64", "jnp.complex64", "tf.complex64"},
  {"torch.complex128", "numpy.complex128", "jnp.complex128", "tf.complex128"},
  {"torch.complex32", "", "", ""},
  {"torch.bcomplex32", "", "", ""},
  {"torch.int4", "ml_dtypes.int4", "jnp.int4", "tf.dtypes.experimental.int4"},
  {"torch.uint4", "ml_dtypes.uint4", "jnp.uint4", "tf.dtypes.experimental.uint4"},
}};
// clang-format on

// The table is indexed by id: every row must sit at its id's position.
constexpr bool rows_in_id_order() {
  for (int i = 0; i < kDTypeCount; ++i)
    if (static_cast<int>(kTable[i].id) != i) return false;
  return true;
}
static_assert(rows_in_id_order(), "dtype table rows must be in DType id order");
static_assert(kTable.size() == kDTypeCount && kFrameworkNames.size() == kDTypeCount);

// Spot checks of the derived limits against the numbers the defining documents print.
static_assert(max_finite(kTable[int(DType::float16)].format) == 65504.0);
static_assert(max_finite(kTable[int(DType::float8_e4m3fn)].format) == 448.0);
static_assert(max_finite(kTable[int(DType::float8_e4m3fnuz)].format) == 240.0);
static_assert(max_finite(kTable[int(DType::float8_e4m3)].format) == 240.0);
static_assert(max_finite(kTable[int(DType::float8_e5m2)].format) == 57344.0);
static_assert(max_finite(kTable[int(DType::float8_e3m4)].format) == 15.5);
static_assert(max_finite(kTable[int(DType::float8_e4m3b11fnuz)].format) == 30.0);
static_assert(max_finite(kTable[int(DType::float6_e2m3fn)].format) == 7.5);
static_assert(max_finite(kTable[int(DType::float6_e3m2fn)].format) == 28.0);
static_assert(max_finite(kTable[int(DType::float4_e2m1fn)].format) == 6.0);
static_assert(max_finite(kTable[int(DType::float32)].format) == std::numeric_limits<float>::max());
static_assert(max_finite(kTable[int(DType::float64)].format) == std::numeric_limits<double>::max());
static_assert(min_subnormal(kTable[int(DType::float32)].format) == std::numeric_limits<float>::denorm_min());
static_assert(min_subnormal(kTable[int(DType::float8_e8m0fnu)].format) == exp2i(-127));
static_assert(unit_roundoff(kTable[int(DType::bfloat16)].format) == exp2i(-8));

}  // namespace

// A DType is a table row or a registered custom format (custom_dtype.h); no other value can
// be made (nothing casts an integer to a DType), so anything else is a programming error.
const DTypeInfo& info(DType t) {
  if (static_cast<int>(t) < kDTypeCount) return kTable[static_cast<int>(t)];
  if (const DTypeInfo* custom = custom_info(t)) return *custom;
  std::fprintf(stderr, "pl::info: DType %d is neither a table row nor a registered custom format\n",
               static_cast<int>(t));
  std::abort();
}

// No framework has a custom format.
const FrameworkNames& framework_names(DType t) {
  static const FrameworkNames kNone{};
  return static_cast<int>(t) < kDTypeCount ? kFrameworkNames[static_cast<int>(t)] : kNone;
}
std::span<const DTypeInfo> all_dtypes() { return kTable; }

int value_bits(DType t) {
  const auto& i = info(t);
  if (i.kind == DTypeKind::Float) return i.format.total_bits();
  return i.packed_bits ? i.packed_bits : i.storage_bits;
}

int64_t int_min(DType t) {
  const auto& i = info(t);
  if (i.kind != DTypeKind::SignedInt) return 0;
  const int bits = value_bits(t);
  return bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
}

uint64_t int_max(DType t) {
  const auto& i = info(t);
  const int bits = value_bits(t);
  if (i.kind == DTypeKind::Bool) return 1;
  if (i.kind == DTypeKind::SignedInt) return (uint64_t{1} << (bits - 1)) - 1;
  if (i.kind == DTypeKind::UnsignedInt) return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return 0;
}

std::string short_name(DType t) {
  if (is_custom(t)) return custom_format_short_name(info(t).format);
  const std::string_view n = name(t);
  // {prefix of the canonical name, its short replacement}, first match wins.
  constexpr std::pair<std::string_view, std::string_view> kRules[] = {
      {"float8_", ""},  {"float6_", ""}, {"float4_", ""}, {"bfloat", "bf"}, {"bcomplex", "bc"},
      {"complex", "c"}, {"float", "f"},  {"uint", "u"},   {"int", "i"}};
  for (const auto& [prefix, replacement] : kRules)
    if (n.substr(0, prefix.size()) == prefix) {
      std::string out(replacement);
      out.append(n.substr(prefix.size()));
      return out;
    }
  return std::string(n);  // bool, tf32
}

}  // namespace pl
