// Every cell of the JAX golden tables (JAX 0.10.2 on the CPU, recorded by
// tests/data/promotion/gen_jax.py) in each configuration: x64 off, x64 on, strict.
#include <sstream>

#include "core/promote/jax_engine.h"
#include "core/promote/py_value.h"
#include "tests/core/promotion_golden.h"

namespace pl::promote {
namespace {

using testing::GoldenFile;

const GoldenFile& golden() {
  static const GoldenFile g(
      "jax_cpu.json", [](DType t) { return std::string(jax::python_name(t)); },
      [](const std::string& n) { return jax::from_python_name(n); });
  return g;
}

jax::Config config_named(const std::string& name) {
  if (name == "x64") return {true, false};
  if (name == "strict") return {false, true};
  EXPECT_EQ(name, "x32");
  return {false, false};
}

TEST(JaxPromotion, GoldenIsJax0102) {
  EXPECT_EQ(golden().json().value("version", ""), std::string(jax::kVersion));
  EXPECT_EQ(golden().dtypes().size(), 28u);
  EXPECT_EQ(golden().json()["configs"].size(), 3u);
}

TEST(JaxPromotion, EveryConfigEveryOpEveryPair) {
  const auto& g = golden();
  const auto& ts = g.dtypes();
  std::vector<std::string> values;
  for (const auto& v : g.json()["values"]) values.push_back(v.get<std::string>());
  size_t cells = 0;
  for (const auto& [cname, cfg] : g.json()["configs"].items()) {
    const jax::Config c = config_named(cname);
    for (const auto& [key, table] : cfg["tables"].items()) {
      const std::string label = cname + " " + key;
      if (key == "promote_types") {
        cells += g.check_node(
            label, table, [&](const std::vector<size_t>& at) { return jax::promote_types(c, ts[at[0]], ts[at[1]]); });
        continue;
      }
      const testing::TableKey tk = testing::parse_table_key(key);
      const auto op = jax::parse_op(tk.op);
      ASSERT_TRUE(op) << key;
      const std::vector<std::string>& kinds = tk.kinds;
      const auto ka = parse_operand_kind(kinds.at(0));
      ASSERT_TRUE(ka) << key;
      if (kinds.at(1) == "pyvalue") {
        cells += g.check_node(label, table,
                              [&](const std::vector<size_t>& at) {
                                return jax::evaluate(c, *op, {ts[at[0]], *ka}, testing::python_scalar(values[at[1]]));
                              },
                              {ts.size(), values.size()});
        continue;
      }
      const auto kb = parse_operand_kind(kinds.at(1));
      ASSERT_TRUE(kb) << key;
      cells += g.check_node(label, table, [&](const std::vector<size_t>& at) {
        return jax::evaluate(c, *op, {ts[at[0]], *ka}, {ts[at[1]], *kb});
      });
    }
  }
  // Per configuration: promote_types, 3 ops x (4 kind pairs of 26 x 26 + 26 x 36 values),
  // matmul, matmul_f32acc and astype.
  EXPECT_EQ(cells, 3u * (28u * 28u + 3u * (4u * 28u * 28u + 28u * 36u) + 3u * 28u * 28u));
}

}  // namespace
}  // namespace pl::promote
