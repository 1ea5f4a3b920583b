// Promotion of an integer to a float is by category, not by range: the sentence every engine
// adds says what is lost, and each number in it is checked here against the codec.
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "core/dtype/codec.h"
#include "core/dtype/device/float_format.h"
#include "core/promote/int_to_float.h"
#include "core/promote/numpy_engine.h"
#include "core/promote/py_value.h"
#include "core/promote/torch_engine.h"

namespace pl::promote {
namespace {

double to_float(DType f, unsigned long long magnitude) {
  const FloatFormat& fmt = info(f).format;
  return decode(fmt, encode_integer(fmt, false, magnitude, CastOptions{}).code);
}

unsigned long long number_after(const std::string& text, const std::string& before) {
  std::smatch m;
  const std::regex re(before + "([0-9]+)");
  EXPECT_TRUE(std::regex_search(text, m, re)) << text << " has no '" << before << "N'";
  return m.empty() ? 0 : std::stoull(m[1].str());
}

// Every integer dtype against every float dtype of the table: the sentence's numbers are the
// codec's (nearest-even, the format's own overflow).
TEST(IntToFloatLoss, EveryNumberItStatesIsTheCodecs) {
  size_t pairs = 0;
  for (const DTypeInfo& i : all_dtypes()) {
    if (i.kind != DTypeKind::Bool && i.kind != DTypeKind::SignedInt && i.kind != DTypeKind::UnsignedInt) continue;
    for (const DTypeInfo& f : all_dtypes()) {
      if (f.kind != DTypeKind::Float || !f.format.is_signed()) continue;
      const std::string s = int_to_float_loss(i.id, f.id);
      SCOPED_TRACE(std::string(i.name) + " -> " + std::string(f.name) + ": " + s);
      ++pairs;
      const bool is_bool = i.kind == DTypeKind::Bool;
      const unsigned long long hi = is_bool ? 1 : static_cast<unsigned long long>(int_hi(i.id));
      if (s.rfind("every ", 0) == 0) {
        EXPECT_EQ(to_float(f.id, hi), static_cast<double>(hi));
        continue;
      }
      if (s.find("exactly only up to") != std::string::npos) {
        const unsigned long long exact = number_after(s, "exactly only up to 2\\^[0-9]+ = ");
        EXPECT_EQ(to_float(f.id, exact), static_cast<double>(exact));
        EXPECT_EQ(number_after(s, "rounded \\("), exact + 1);
        EXPECT_EQ(to_float(f.id, exact + 1), static_cast<double>(exact));
        EXPECT_LE(exact + 1, hi);
      }
      if (s.find("become inf") != std::string::npos) {
        const unsigned long long inf_from = number_after(s, "values (?:from|of magnitude) ");
        EXPECT_TRUE(std::isinf(to_float(f.id, inf_from)));
        EXPECT_TRUE(std::isfinite(to_float(f.id, inf_from - 1)));
        EXPECT_LE(inf_from, hi);
      } else if (s.find("do not fit") != std::string::npos) {
        // The larger magnitude does not fit: int4's -8 in float6_e2m3fn (7.5), say.
        EXPECT_GT(std::max(static_cast<double>(hi), -static_cast<double>(is_bool ? 0 : int_lo(i.id))), max_finite(f.format));
      } else {
        EXPECT_TRUE(std::isfinite(to_float(f.id, hi)));
      }
    }
  }
  EXPECT_GE(pairs, 50u);
}

// (Larger values "can be" rounded, not "are": 16777218 is exact in float32, as scenario 23 checks.)
TEST(IntToFloatLoss, NamesTheClassicCases) {
  EXPECT_EQ(int_to_float_loss(DType::int32, DType::float32),
            "float32 holds every integer only up to 2^24 = 16777216, so larger int32 values can be rounded "
            "(16777217 becomes 16777216)");
  EXPECT_NE(int_to_float_loss(DType::int32, DType::float16).find("magnitude 65520 or more become inf"),
            std::string::npos);
  EXPECT_NE(int_to_float_loss(DType::int64, DType::float64).find("9007199254740993 becomes 9007199254740992"),
            std::string::npos);
  EXPECT_EQ(int_to_float_loss(DType::int8, DType::float16), "every int8 value converts to float16 exactly");
  EXPECT_EQ(int_to_float_loss(DType::float16, DType::float32), "");
}

// PyTorch's rule for int32 + float32 said "the operand dtype that can hold both values":
// 16777217 + 0.0 gives 16777216.0, and int32 70000 + float16 0 gives inf.
TEST(IntToFloatLoss, TorchSaysCategoryNotCapacity) {
  const Operand a{DType::int32, OperandKind::Tensor}, b{DType::float32, OperandKind::Tensor};
  const Outcome o = torch::evaluate(torch::Op::Add, a, b);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o.rule.find("can hold both"), std::string::npos) << o.rule;
  EXPECT_NE(o.rule.find("a float dtype beats an integer dtype whatever their widths"), std::string::npos) << o.rule;
  EXPECT_NE(o.rule.find("16777217 becomes 16777216"), std::string::npos) << o.rule;
  const Outcome h = torch::evaluate(torch::Op::Add, a, Operand{DType::float16, OperandKind::Tensor});
  EXPECT_NE(h.rule.find("65520 or more become inf"), std::string::npos) << h.rule;
  // Within a category the wider dtype does hold the other's values.
  const Outcome w = torch::evaluate(torch::Op::Add, Operand{DType::int8, OperandKind::Tensor},
                                    Operand{DType::int32, OperandKind::Tensor});
  EXPECT_NE(w.rule.find("holds every value of the other"), std::string::npos) << w.rule;
}

// NumPy's promote_types is "the smallest type both cast to safely", and its safe table lets
// int64 -> float64 through: float64 does not hold every int64.
TEST(IntToFloatLoss, NumpySaysSafeCastNotEveryValue) {
  for (numpy::Version v : {numpy::Version::V1, numpy::Version::V2}) {
    const Outcome o = numpy::evaluate(v, numpy::Op::Add, Operand{DType::int64, OperandKind::Tensor},
                                      Operand{DType::float64, OperandKind::Tensor});
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o.rule.find("holds every value"), std::string::npos) << o.rule;
  }
  const Outcome t = numpy::promote_types(numpy::Version::V2, DType::int64, DType::float64);
  EXPECT_NE(t.rule.find("9007199254740993 becomes 9007199254740992"), std::string::npos) << t.rule;
}

// NumPy 1.x treats a Python scalar as a zero-dim array; the rule called the user's scalar "the
// zero-dim operand".
TEST(IntToFloatLoss, Numpy1NamesAPythonScalarAsSuch) {
  Operand s{DType::int64, OperandKind::Scalar};
  const Outcome o = numpy::evaluate(numpy::Version::V1, numpy::Op::Add, Operand{DType::uint8, OperandKind::Tensor}, s);
  EXPECT_EQ(o.rule.find("zero-dim operand"), std::string::npos) << o.rule;
  EXPECT_NE(o.rule.find("Python scalar"), std::string::npos) << o.rule;
}

}  // namespace
}  // namespace pl::promote
