// Every cell of the PyTorch golden tables (recorded from the real library by
// tests/data/promotion/gen_torch.py): result dtype, or exception type and exact text.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/promote/engine.h"
#include "core/promote/torch_engine.h"
#include "core/promote/torch_names.h"

namespace pl::promote {
namespace {

using nlohmann::json;

const json& golden() {
  static const json j = [] {
    std::ifstream in(std::string(PL_PROMOTION_DIR) + "/torch_cpu.json");
    if (!in) ADD_FAILURE() << "missing tests/data/promotion/torch_cpu.json";
    return in ? json::parse(in) : json::object();
  }();
  return j;
}

std::vector<DType> dtypes_of(const std::string& cell) {
  std::vector<DType> out;
  std::stringstream ss(cell);
  for (std::string part; std::getline(ss, part, ',');) {
    auto t = torch::from_python_name(part);
    EXPECT_TRUE(t) << "unknown torch dtype " << part;
    out.push_back(t.value_or(DType::float32));
  }
  return out;
}

// Compares one table; reports every differing cell (up to a limit) rather than the first.
template <typename Fn>
void check_table(const std::string& table, const json& cells, Fn&& engine) {
  int bad = 0;
  for (const auto& [cell, want] : cells.items()) {
    const Outcome got = engine(dtypes_of(cell));
    std::string got_text = got.ok() ? std::string(torch::python_name(*got.result))
                                    : got.error_type + ": " + got.message;
    const json& w = want;
    std::string want_text = w.is_string() ? w.get<std::string>()
                                          : w["error"].get<std::string>() + ": " +
                                                w["message"].get<std::string>();
    if (got_text != want_text && ++bad <= 8)
      ADD_FAILURE() << table << " [" << cell << "]\n  want: " << want_text
                    << "\n  got:  " << got_text;
  }
  EXPECT_EQ(bad, 0) << table << ": " << bad << " of " << cells.size() << " cells differ";
}

TEST(TorchPromotion, GoldenIsPyTorch215) {
  EXPECT_EQ(golden().value("version", ""), std::string(torch::kVersion));
}

TEST(TorchPromotion, PromoteTypesEveryPair) {
  check_table("promote_types", golden()["promote_types"],
              [](const std::vector<DType>& t) { return torch::promote_types(t[0], t[1]); });
}

TEST(TorchPromotion, EveryOpEveryOperandKindEveryPair) {
  for (const auto& [key, cells] : golden()["ops"].items()) {
    const auto colon = key.find(':');
    const auto op = torch::parse_op(key.substr(0, colon));
    ASSERT_TRUE(op) << key;
    std::vector<std::string> kinds;
    std::stringstream ss(key.substr(colon + 1));
    for (std::string k; std::getline(ss, k, ',');) kinds.push_back(k);
    const bool with_bias = kinds.size() == 3;
    const auto ka = parse_operand_kind(kinds[0]), kb = parse_operand_kind(kinds[1]);
    ASSERT_TRUE(ka && kb) << key;
    check_table(key, cells, [&](const std::vector<DType>& t) {
      return torch::evaluate(*op, {t[0], *ka}, {t[1], *kb},
                             with_bias ? std::optional<DType>(t[2]) : std::nullopt);
    });
  }
}

}  // namespace
}  // namespace pl::promote

namespace pl::promote {
namespace {

TEST(OutcomeClass, KeptWidenedNarrowedError) {
  auto eval = [](DType a, DType b, OperandKind kb = OperandKind::Tensor) {
    return torch::evaluate(torch::Op::Add, {a}, {b, kb});
  };
  EXPECT_EQ(classify(DType::float32, DType::float64, eval(DType::float32, DType::float64)),
            OutcomeClass::Kept);
  EXPECT_EQ(classify(DType::float16, DType::bfloat16, eval(DType::float16, DType::bfloat16)),
            OutcomeClass::Widened);
  EXPECT_EQ(classify(DType::int64, DType::float16, eval(DType::int64, DType::float16)),
            OutcomeClass::Narrowed);
  EXPECT_EQ(classify(DType::float16, DType::float64,
                     eval(DType::float16, DType::float64, OperandKind::ZeroDim)),
            OutcomeClass::Narrowed);
  EXPECT_EQ(classify(DType::float8_e4m3fn, DType::float32,
                     eval(DType::float8_e4m3fn, DType::float32)),
            OutcomeClass::Error);
}

}  // namespace
}  // namespace pl::promote

namespace pl::promote {
namespace {

TEST(PromotionFixes, LinearFloat32WithBFloat16Weight) {
  const Engine* e = find_engine("torch");
  ASSERT_NE(e, nullptr);
  Query q{"linear", {DType::float32}, {DType::bfloat16}, std::nullopt};
  ASSERT_FALSE(e->evaluate(q).ok());
  const auto fixes = suggest_fixes(*e, q);
  ASSERT_EQ(fixes.size(), 3u);
  EXPECT_EQ(fixes[0].code, "x.to(w.dtype)");
  EXPECT_EQ(fixes[0].outcome.result, DType::bfloat16);
  EXPECT_EQ(fixes[1].code, "model.to(x.dtype)");
  EXPECT_EQ(fixes[1].outcome.result, DType::float32);
  EXPECT_EQ(fixes[2].outcome.result, DType::float32);
}

TEST(PromotionFixes, BiasOfAThirdDtype) {
  const Engine* e = find_engine("torch");
  Query q{"conv2d", {DType::float16}, {DType::float16}, DType::float32};
  const auto fixes = suggest_fixes(*e, q);
  ASSERT_FALSE(fixes.empty());
  EXPECT_EQ(fixes[0].code, "bias.to(x.dtype)");
  EXPECT_EQ(fixes[0].outcome.result, DType::float16);
}

TEST(TorchPromotion, DtypesPyTorchLacksAreNamedAsSuch) {
  Outcome o = torch::promote_types(DType::tf32, DType::float32);
  EXPECT_EQ(o.error_type, "AttributeError");
  EXPECT_EQ(o.message, "module 'torch' has no attribute 'tf32'");
  o = torch::evaluate(torch::Op::Add, {DType::float6_e2m3fn}, {DType::float32});
  EXPECT_EQ(o.error_type, "AttributeError");
}

}  // namespace
}  // namespace pl::promote
