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

// The dtypes the tables are indexed by, in the generator's order.
const std::vector<DType>& golden_dtypes() {
  static const std::vector<DType> ts = [] {
    std::vector<DType> out;
    for (const auto& n : golden()["dtypes"]) {
      auto t = torch::from_python_name(n.get<std::string>());
      EXPECT_TRUE(t) << "unknown torch dtype " << n;
      out.push_back(t.value_or(DType::float32));
    }
    return out;
  }();
  return ts;
}

std::string text_of(const json& outcome) {
  return outcome.is_string() ? outcome.get<std::string>()
                             : outcome["error"].get<std::string>() + ": " +
                                   outcome["message"].get<std::string>();
}

std::string text_of(const Outcome& o) {
  return o.ok() ? std::string(torch::python_name(*o.result)) : o.error_type + ": " + o.message;
}

// Compares one table (nested outcome indices, [a][b] or [a][b][bias]) cell by cell;
// reports every differing cell (up to a limit) rather than the first. Returns the cell count.
template <typename Fn>
size_t check_table(const std::string& table, const json& cells, Fn&& engine) {
  const auto& ts = golden_dtypes();
  const json& outcomes = golden()["outcomes"];
  size_t count = 0, bad = 0;
  std::vector<DType> at;
  auto walk = [&](auto&& self, const json& node) -> void {
    if (!node.is_array()) {
      ++count;
      const std::string want = text_of(outcomes.at(node.get<size_t>()));
      const std::string got = text_of(engine(at));
      if (got != want && ++bad <= 8) {
        std::string cell;
        for (DType t : at) cell.append(cell.empty() ? "" : ",").append(torch::python_name(t));
        ADD_FAILURE() << table << " [" << cell << "]\n  want: " << want << "\n  got:  " << got;
      }
      return;
    }
    EXPECT_EQ(node.size(), ts.size()) << table;
    for (size_t i = 0; i < node.size() && i < ts.size(); ++i) {
      at.push_back(ts[i]);
      self(self, node[i]);
      at.pop_back();
    }
  };
  walk(walk, cells);
  EXPECT_EQ(bad, 0u) << table << ": " << bad << " of " << count << " cells differ";
  return count;
}

TEST(TorchPromotion, GoldenIsPyTorch215) {
  EXPECT_EQ(golden().value("version", ""), std::string(torch::kVersion));
  EXPECT_EQ(golden_dtypes().size(), 23u);
}

TEST(TorchPromotion, PromoteTypesEveryPair) {
  const size_t n = check_table("promote_types", golden()["tables"]["promote_types"],
                               [](const std::vector<DType>& t) {
                                 return torch::promote_types(t[0], t[1]);
                               });
  EXPECT_EQ(n, 23u * 23u);
}

TEST(TorchPromotion, EveryOpEveryOperandKindEveryPair) {
  size_t cells_checked = 0;
  for (const auto& [key, cells] : golden()["tables"].items()) {
    if (key == "promote_types") continue;
    const auto colon = key.find(':');
    const auto op = torch::parse_op(key.substr(0, colon));
    ASSERT_TRUE(op) << key;
    std::vector<std::string> kinds;
    std::stringstream ss(key.substr(colon + 1));
    for (std::string k; std::getline(ss, k, ',');) kinds.push_back(k);
    const bool with_bias = kinds.size() == 3;
    const auto ka = parse_operand_kind(kinds[0]), kb = parse_operand_kind(kinds[1]);
    ASSERT_TRUE(ka && kb) << key;
    cells_checked += check_table(key, cells, [&](const std::vector<DType>& t) {
      return torch::evaluate(*op, {t[0], *ka}, {t[1], *kb},
                             with_bias ? std::optional<DType>(t[2]) : std::nullopt);
    });
  }
  // 4 elementwise ops x 7 operand-kind pairs and 7 two-operand ops, 23 x 23 cells each;
  // 4 ops with every bias dtype, 23^3 cells each.
  EXPECT_EQ(cells_checked, (4u * 7u + 7u) * 23u * 23u + 4u * 23u * 23u * 23u);
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
