// float32 -> float8_e8m0fnu, against the libraries' own casts (tests/data/casts/gen_e8m0_casts.py
// ran them): Precision Lab rounds correctly, and every recorded difference is one that
// docs/numerics.md and `cast --help` name -- ml_dtypes 0.6.0 and PyTorch 2.15 round the float32
// subnormals in (2^-127, 1.5 * 2^-127) up to 2^-126, and PyTorch casts a negative value as its
// magnitude and a zero to 2^-127 where there is only NaN to give. Any other difference fails.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/dtype/codec.h"
#include "core/dtype/dtype.h"

namespace pl {
namespace {

TEST(E8m0Casts, EveryDifferenceFromTheLibrariesIsANamedOne) {
  std::ifstream in(std::string(PL_CASTS_DIR) + "/e8m0_casts.json");
  ASSERT_TRUE(in);
  const auto rows = nlohmann::json::parse(in)["rows"];
  const FloatFormat& e8m0 = info(DType::float8_e8m0fnu).format;
  std::set<std::string> libraries;
  size_t differences = 0;
  for (const auto& r : rows) {
    const std::string library = r["library"].get<std::string>() + " " + r["version"].get<std::string>();
    const std::string hex = r["value"].get<std::string>();
    SCOPED_TRACE(library + ": " + hex);
    const float x = static_cast<float>(std::strtod(hex.c_str(), nullptr));
    const uint64_t ours = encode_f32(e8m0, x, CastOptions{}).code, theirs = r["code"].get<uint64_t>();
    libraries.insert(library);
    if (ours == theirs) continue;
    ++differences;
    const bool subnormal_up = x > 0x1p-127f && x < 0x1.8p-127f && ours == 0 && theirs == 1;
    const bool torch_sign_or_zero = library == "torch 2.15.0" && !std::isnan(x) && std::isfinite(x) && ours == 0xff &&
                                    (x == 0 ? theirs == 0 : theirs == encode_f32(e8m0, -x, CastOptions{}).code);
    if (subnormal_up) {
      EXPECT_TRUE(library == "ml_dtypes 0.6.0" || library == "torch 2.15.0")
          << "ours " << ours << ", theirs " << theirs;
    } else {
      EXPECT_TRUE(torch_sign_or_zero) << "ours " << ours << ", theirs " << theirs;
    }
  }
  EXPECT_EQ(libraries, (std::set<std::string>{"ml_dtypes 0.6.0", "ml_dtypes 0.7.0", "torch 2.15.0"}));
  // The two subnormals in ml_dtypes 0.6.0 and torch; torch's two negatives, a negative subnormal
  // and two zeros.
  EXPECT_EQ(differences, 2u + 2u + 5u);
}

}  // namespace
}  // namespace pl
