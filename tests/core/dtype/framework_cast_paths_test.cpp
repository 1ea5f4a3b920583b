// The cast-path table against its recording (tests/data/casts/gen_cast_paths.py ran each library's
// own float64 cast): the note beside a cast said "PyTorch 2.x c10 casts, ml_dtypes 0.6.0" for
// every dtype, although PyTorch 1.13 rounds twice too and NumPy's float16 cast rounds once.
#include "core/dtype/framework_cast_paths.h"

#include <cmath>
#include <fstream>
#include <set>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/dtype/describe.h"
#include "core/dtype/format_lookup.h"

namespace pl {
namespace {

TEST(FrameworkCastPaths, AreTheRecordedOnes) {
  std::ifstream in(std::string(PL_CASTS_DIR) + "/cast_paths.json");
  ASSERT_TRUE(in);
  const auto rows = nlohmann::json::parse(in)["rows"];
  using Row = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string, std::string>;
  std::set<Row> recorded, table;
  for (const auto& r : rows)
    recorded.insert({r["framework"].get<std::string>(), r["release"].get<std::string>(), r["dtype"].get<std::string>(),
                     r["path"].get<std::string>(), r["past_largest"].get<std::string>(), r["inf"].get<std::string>(),
                     r["nan"].get<std::string>()});
  for (const FrameworkCastPath& p : framework_cast_paths())
    table.insert({std::string(p.framework), std::string(p.release), std::string(name(p.to)), cast_path_name(p.path),
                  past_largest_name(p.past_largest), past_largest_name(p.inf), nan_becomes_name(p.nan)});
  EXPECT_EQ(table, recorded);
  EXPECT_GE(recorded.size(), 20u);
}

TEST(FrameworkCastPaths, AttributesEachPathToItsFrameworks) {
  EXPECT_EQ(cast_path_attribution(DType::float16),
            "PyTorch 2.15 and 1.13 round twice, through float32; NumPy 2.4 and 1.24 round once");
  // ml_dtypes 0.7.0 converts a double in one rounding, where 0.6.0 went through float.
  EXPECT_EQ(cast_path_attribution(DType::float8_e4m3fn),
            "PyTorch 2.15, ml_dtypes 0.6.0 round twice, through float32; ml_dtypes 0.7.0 rounds once");
  EXPECT_EQ(cast_path_attribution(DType::float6_e2m3fn),
            "ml_dtypes 0.6.0 rounds twice, through float32; ml_dtypes 0.7.0 rounds once");
  EXPECT_EQ(cast_path_attribution(DType::float32), "");
}

// The formats leave a value past the largest finite to the framework, and the note beside such a
// cast said only what the format's rule gives: NaN for float8_e4m3fn, although PyTorch 2.15's own
// cast saturates (480 and inf become 448).
TEST(FrameworkCastPaths, SayWhatEachFrameworkGivesPastTheLargest) {
  EXPECT_EQ(overflow_attribution(DType::float8_e4m3fn),
            "PyTorch 2.15 saturates to the largest finite, inf too; ml_dtypes 0.6.0 and 0.7.0 give nan");
  EXPECT_EQ(overflow_attribution(DType::float16), "PyTorch 2.15 and 1.13 give inf; NumPy 2.4 and 1.24 give inf");
  EXPECT_EQ(overflow_attribution(DType::float4_e2m1fn),
            "ml_dtypes 0.6.0 and 0.7.0 saturate to the largest finite, inf too");
  EXPECT_EQ(overflow_attribution(DType::float32), "");
}

// A format without NaN leaves a NaN to the framework: the codec gives the zero of the NaN's sign
// and ml_dtypes the other sign's, so a note beside such a cast says which frameworks differ. It
// stands beside a NaN cast into float4 and float6, and nowhere else.
TEST(FrameworkCastPaths, NoteWhereAFrameworksNaNZeroHasTheOtherSign) {
  const CastOptions o;
  for (DType t : {DType::float4_e2m1fn, DType::float6_e2m3fn, DType::float6_e3m2fn}) {
    const FormatRef f = format_ref(t);
    for (double nan : {double(NAN), -double(NAN)})
      EXPECT_EQ(nan_note(f.dtype, describe_cast(f.format, nan, o, 0)),
                "ml_dtypes 0.6.0 and 0.7.0 give the zero of the other sign (+nan becomes -0, -nan +0)")
          << name(t);
    EXPECT_EQ(nan_note(f.dtype, describe_cast(f.format, 1.0, o, 0)), "") << name(t);
    EXPECT_EQ(nan_note(std::nullopt, describe_cast(f.format, double(NAN), o, 0)), "") << name(t);
  }
  for (DType t : {DType::float8_e4m3fn, DType::float16, DType::bfloat16}) {
    const FormatRef f = format_ref(t);
    EXPECT_EQ(nan_note(f.dtype, describe_cast(f.format, double(NAN), o, 0)), "") << name(t);
  }
}

// The note stands beside a cast that went past the largest finite or started at inf, and only
// there: 480 and inf into float8_e4m3fn, not 100, nor a custom format.
TEST(FrameworkCastPaths, NoteThePastLargestOnlyWhereTheCastWentThere) {
  const FormatRef e4m3 = format_ref(DType::float8_e4m3fn);
  const CastOptions o;
  for (double x : {480.0, double(INFINITY), -1e9})
    EXPECT_NE(past_largest_note(e4m3.dtype, describe_cast(e4m3.format, x, o, 0)).find("PyTorch 2.15 saturates"),
              std::string::npos)
        << x;
  EXPECT_EQ(past_largest_note(e4m3.dtype, describe_cast(e4m3.format, 100.0, o, 0)), "");
  EXPECT_EQ(past_largest_note(std::nullopt, describe_cast(e4m3.format, 480.0, o, 0)), "");
  CastOptions saturating;
  saturating.overflow = Overflow::Saturate;
  EXPECT_NE(past_largest_note(e4m3.dtype, describe_cast(e4m3.format, 480.0, saturating, 0)), "");
  // Rounding up takes float16's 65505 past 65504, but every framework rounds it to nearest: 65504.
  const FormatRef f16 = format_ref(DType::float16);
  CastOptions up;
  up.rounding = Rounding::Up;
  EXPECT_EQ(past_largest_note(f16.dtype, describe_cast(f16.format, 65505.0, up, 0)), "");
  EXPECT_NE(past_largest_note(f16.dtype, describe_cast(f16.format, 65520.0, up, 0)), "");
}

}  // namespace
}  // namespace pl
