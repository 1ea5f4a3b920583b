// The cast-path table against its recording (tests/data/casts/gen_cast_paths.py ran each library's
// own float64 cast): the note beside a cast said "PyTorch 2.x c10 casts, ml_dtypes 0.6.0" for
// every dtype, although PyTorch 1.13 rounds twice too and NumPy's float16 cast rounds once.
#include "core/dtype/framework_cast_paths.h"

#include <fstream>
#include <set>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/dtype/format_lookup.h"

namespace pl {
namespace {

TEST(FrameworkCastPaths, AreTheRecordedOnes) {
  std::ifstream in(std::string(PL_CASTS_DIR) + "/cast_paths.json");
  ASSERT_TRUE(in);
  const auto rows = nlohmann::json::parse(in)["rows"];
  using Row = std::tuple<std::string, std::string, std::string, std::string>;
  std::set<Row> recorded, table;
  for (const auto& r : rows)
    recorded.insert({r["framework"].get<std::string>(), r["release"].get<std::string>(), r["dtype"].get<std::string>(),
                     r["path"].get<std::string>()});
  for (const FrameworkCastPath& p : framework_cast_paths())
    table.insert({std::string(p.framework), std::string(p.release), std::string(name(p.to)), cast_path_name(p.path)});
  EXPECT_EQ(table, recorded);
  EXPECT_GE(recorded.size(), 20u);
}

TEST(FrameworkCastPaths, AttributesEachPathToItsFrameworks) {
  EXPECT_EQ(cast_path_attribution(DType::float16),
            "PyTorch 2.15 and 1.13 round twice, through float32; NumPy 2.4 and 1.24 round once");
  EXPECT_EQ(cast_path_attribution(DType::float8_e4m3fn), "PyTorch 2.15, ml_dtypes 0.6.0 round twice, through float32");
  EXPECT_EQ(cast_path_attribution(DType::float32), "");
}

}  // namespace
}  // namespace pl
