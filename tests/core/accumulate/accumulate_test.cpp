// The accumulation models against an independent exact-rational oracle
// (tests/data/accumulate/gen_accumulate.py: Fraction arithmetic, every addition rounded
// once by the same oracle the codec's golden data uses).
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/accumulate/accumulate.h"
#include "core/accumulate/accumulation_spec.h"
#include "core/dtype/format_lookup.h"

namespace pl::experiment {
namespace {

using nlohmann::json;

const json& golden() {
  static const json j = [] {
    std::ifstream in(std::string(PL_ACCUMULATE_DIR) + "/dots.json");
    if (!in) ADD_FAILURE() << "missing tests/data/accumulate/dots.json";
    return in ? json::parse(in) : json::object();
  }();
  return j;
}

double hex(const json& v) { return std::strtod(v.get<std::string>().c_str(), nullptr); }

std::vector<double> hexes(const json& vs) {
  std::vector<double> out;
  for (const auto& v : vs) out.push_back(hex(v));
  return out;
}

DType dtype(const json& v) {
  const auto t = parse_dtype(v.get<std::string>());
  EXPECT_TRUE(t) << v;
  return t ? *t : DType::float32;
}

Rounding rounding(const std::string& r) {
  Rounding out = Rounding::NearestEven;
  if (!parse_rounding(r.c_str(), &out)) ADD_FAILURE() << "unknown rounding " << r;
  return out;
}

TEST(Accumulate, EveryModelEveryModeMatchesTheExactOracle) {
  size_t checked = 0, bad = 0;
  for (const auto& c : golden()["cases"]) {
    const auto a = hexes(c["a"]), b = hexes(c["b"]);
    for (const auto& r : c["results"]) {
      Accumulation acc;
      acc.kind = *parse_accum_kind(r["kind"].get<std::string>());
      acc.format = dtype(r["format"]);
      acc.rounding = rounding(r["rounding"].get<std::string>());
      acc.block = r.value("block", 32);
      acc.chunk = r.value("chunk", 128);
      if (r.contains("outer")) acc.outer = dtype(r["outer"]);
      ASSERT_EQ(check(acc).error(), "");
      const double want = hex(r["value"]), got = dot(a, b, acc);
      ++checked;
      if (!(got == want || (std::isnan(got) && std::isnan(want))) && ++bad <= 8)
        ADD_FAILURE() << "n=" << c["n"] << " " << describe(acc) << ": want " << want << " got " << got;
    }
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(checked, 9u * 5u * (3u * 3u + 2u));  // 3 crafted + 6 random cases
}

TEST(Accumulate, ReferenceIsTheCorrectlyRoundedExactSum) {
  for (const auto& c : golden()["cases"]) {
    const auto a = hexes(c["a"]), b = hexes(c["b"]);
    const DoubleDouble ref = dot_reference(a, b);
    EXPECT_EQ(ref.hi, hex(c["exact"])) << "n=" << c["n"];
  }
}

TEST(Accumulate, Float64IsTheHardwareLoop) {
  const std::vector<double> a = {1e16, 1.0, -1e16}, b = {1.0, 1.0, 1.0};
  double s = 0;
  for (size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
  EXPECT_EQ(dot(a, b, {AccumKind::Float64}), s);
  EXPECT_EQ(s, 0.0);                       // 1e16 + 1 rounds back to 1e16 in float64
  EXPECT_EQ(dot_reference(a, b).hi, 1.0);  // the double-double reference keeps the 1
}

TEST(Accumulate, ExactZeroSumIsNegativeOnlyWhenRoundingDown) {
  const std::vector<double> a = {1.0, -1.0}, b = {1.0, 1.0};
  Accumulation acc{AccumKind::Sequential, DType::float16};
  EXPECT_FALSE(std::signbit(dot(a, b, acc)));
  acc.rounding = Rounding::Down;
  EXPECT_TRUE(std::signbit(dot(a, b, acc)));
}

TEST(Accumulate, BadModelsAreRefusedWithAReason) {
  EXPECT_NE(check({AccumKind::Float64, DType::float64, Rounding::TowardZero}).error(), "");
  EXPECT_NE(check({AccumKind::Sequential, DType::int8}).error(), "");
  EXPECT_NE(check({AccumKind::Sequential, DType::float64}).error(), "");
  Accumulation p{AccumKind::Pairwise, DType::float32};
  p.block = 0;
  EXPECT_NE(check(p).error(), "");
  Accumulation c{AccumKind::Chunked, DType::float16};
  c.outer = DType::int32;
  EXPECT_NE(check(c).error(), "");
  EXPECT_EQ(check({AccumKind::Kahan, DType::bfloat16}).error(), "");
}

TEST(Accumulate, Float16AccumulationStallsWhereFloat32DoesNot) {
  // 4096 products of 1: float16 (11 bits) stops counting at 2048, float32 does not.
  const std::vector<double> ones(4096, 1.0);
  EXPECT_EQ(dot(ones, ones, {AccumKind::Sequential, DType::float16}), 2048.0);
  EXPECT_EQ(dot(ones, ones, {AccumKind::Sequential, DType::float32}), 4096.0);
  EXPECT_EQ(dot(ones, ones, {AccumKind::Pairwise, DType::float16}), 4096.0);
  Accumulation chunked{AccumKind::Chunked, DType::float16};
  chunked.chunk = 128;
  EXPECT_EQ(dot(ones, ones, chunked), 4096.0);
  EXPECT_EQ(dot(ones, ones, {AccumKind::Kahan, DType::float16}), 4096.0);
}

// A bug this test keeps out: rounding hi + lo by always stepping hi one float64 ulp toward lo
// fails when that step lands on a midpoint of the target format (a tie that hi + lo is not).
// 1 + a*b with these float32 operands lies in (m - 2^-52, m - 2^-53) for the float32 midpoint
// m = 1 + 3 * 2^-24: float64 rounds it to m - 2^-52 with lo > 0, the step gives m, and m ties
// to the even 1 + 2^-22, while the exact sum rounds down to 1 + 2^-23. Rounding to odd
// (step only from an even hi) is right: an odd double is never a float32 boundary.
TEST(Accumulate, SumNextToAMidpointRoundsLikeTheExactSum) {
  const double a = 0x1.d55e000000000p-16, b = 0x1.a2e0fe0000000p-8;  // 60079 * 2^-31, 13725823 * 2^-31
  ASSERT_EQ(static_cast<double>(static_cast<float>(a)), a);
  ASSERT_EQ(static_cast<double>(static_cast<float>(b)), b);
  const std::vector<double> x = {1.0, a}, y = {1.0, b};
  EXPECT_EQ(dot(x, y, {AccumKind::Sequential, DType::float32}), 1.0 + 0x1p-23);
  // The same through the codec's own rounding of the exact value's two parts.
  const double hi = 1.0 + a * b, lo = std::fma(a, b, 1.0 - hi);
  EXPECT_EQ(round_exact_sum(info(DType::float32).format, hi, lo, {}, 0), 1.0 + 0x1p-23);
}

// Each model's additions round to its format's u for its rounding; float64's loop to 2^-53.
TEST(Accumulate, EachModelsUnitIsItsFormatsForItsRounding) {
  const auto unit = [](const char* spec) { return accumulation_unit(parse_accumulation(spec).value()); };
  EXPECT_EQ(unit("f64"), 0x1p-53);
  EXPECT_EQ(unit("f32:blas"), 0x1p-24);
  EXPECT_EQ(unit("bf16:sequential"), 0x1p-8);
  EXPECT_EQ(unit("f16:sequential:rtz"), 0x1p-10);
  EXPECT_EQ(unit("f32:kahan"), 0x1p-24);
}

}  // namespace
}  // namespace pl::experiment
