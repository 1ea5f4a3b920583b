#include "core/dtype/format_lookup.h"
#include "tests/core/test_util.h"

namespace pl {
namespace {

TEST(Lookup, FrameworkSpellings) {
  EXPECT_EQ(*parse_dtype("torch.float16"), DType::float16);
  EXPECT_EQ(*parse_dtype("half"), DType::float16);
  EXPECT_EQ(*parse_dtype("np.float16"), DType::float16);
  EXPECT_EQ(*parse_dtype("jnp.bfloat16"), DType::bfloat16);
  EXPECT_EQ(*parse_dtype("torch.float"), DType::float32);
  EXPECT_EQ(*parse_dtype("np.double"), DType::float64);
  EXPECT_EQ(*parse_dtype("FLOAT8_E4M3FN"), DType::float8_e4m3fn);
  EXPECT_EQ(*parse_dtype("tf.dtypes.experimental.float8_e5m2"), DType::float8_e5m2);
}

TEST(Lookup, UnknownNameSuggestsClosestAndListsValid) {
  auto t = parse_dtype("float8_e4m3f");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().find("did you mean 'float8_e4m3fn'"), std::string::npos) << t.error();
  EXPECT_NE(t.error().find("float4_e2m1fn"), std::string::npos);
  EXPECT_NE(parse_dtype("bflaot16").error().find("'bfloat16'"), std::string::npos);
  // Custom formats are dtypes too (custom_dtype.h): both errors offer them.
  EXPECT_NE(t.error().find("custom float formats such as e5m7"), std::string::npos) << t.error();
  EXPECT_NE(parse_float_format("e5mq").error().find("custom float formats such as e5m7"), std::string::npos);
}

// Bug: `cast --to e5m10` and `explore --format e5m10` named the format e5m10b15:ieee and left out
// the frameworks' notes that float16 carries, while `promote e5m10` said float16.
TEST(Lookup, ASpellingOfATableFormatIsThatRowForTheCodecToo) {
  for (const auto& [spelling, t] :
       {std::pair{"e5m10", DType::float16}, std::pair{"e8m7", DType::bfloat16}, std::pair{"e5m2", DType::float8_e5m2},
        std::pair{"e4m3:fn", DType::float8_e4m3fn}, std::pair{"e4m3b11:fnuz", DType::float8_e4m3b11fnuz}}) {
    const auto f = parse_float_format(spelling);
    ASSERT_TRUE(f.ok()) << spelling << ": " << f.error();
    EXPECT_EQ(f->dtype, t) << spelling;
    EXPECT_EQ(f->name, name(t)) << spelling;
  }
  EXPECT_FALSE(parse_float_format("e5m7")->dtype);  // no row: a custom format
}

TEST(Lookup, CustomFormats) {
  auto f = parse_float_format("e5m7");
  ASSERT_TRUE(f.ok()) << f.error();
  EXPECT_EQ(f->format.bias, 15);
  EXPECT_EQ(f->name, "e5m7b15:ieee");
  auto g = parse_float_format("e4m3b11:fnuz");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(max_finite(g->format), 30.0);  // the same as float8_e4m3b11fnuz
  auto h = parse_float_format("e4m3:fn");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(max_finite(h->format), 448.0);
  EXPECT_FALSE(parse_float_format("e12m3").ok());
  EXPECT_FALSE(parse_float_format("e3m0:ieee").ok());
  EXPECT_FALSE(parse_float_format("e2m1b-2000").ok());
  EXPECT_FALSE(parse_float_format("int8").ok());
}

// Bug: "float32:" asked "did you mean 'int8'?" of the empty name after the colon.
TEST(Lookup, AnEmptyNameIsSaidToBeEmpty) {
  const auto empty = parse_dtype("");
  ASSERT_FALSE(empty);
  EXPECT_TRUE(empty.error().starts_with("a dtype name is empty; valid names: ")) << empty.error();
  EXPECT_EQ(empty.error().find("did you mean"), std::string::npos) << empty.error();
}

// Bug: a bias of more than 7 digits was taken as +9999999 whatever its sign: "e4m3b-99999999"
// said its range was 2^-10000001 .. 2^-9999985. It is refused as the bias typed.
TEST(Lookup, AHugeBiasIsRefusedWithItsSign) {
  const auto negative = parse_float_format("e4m3b-99999999");
  ASSERT_FALSE(negative);
  EXPECT_NE(negative.error().find("a bias of -99999999 puts its range far outside float64's"), std::string::npos)
      << negative.error();
  const auto seven = parse_float_format("e4m3b-9999999");  // as many digits as are read
  ASSERT_FALSE(seven);
  EXPECT_NE(seven.error().find("its range (2^9999997 .. 2^10000013)"), std::string::npos) << seven.error();
  EXPECT_TRUE(parse_float_format("e4m3b-200"));
  const auto zeros = parse_float_format("e4m3b00000001");  // (leading zeros are no size)
  ASSERT_TRUE(zeros) << zeros.error();
  EXPECT_EQ(zeros->format.bias, 1);
}

}  // namespace
}  // namespace pl
