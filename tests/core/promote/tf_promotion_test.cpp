// Every cell of the TensorFlow golden tables (TensorFlow 2.21.0 on the CPU, eager; default
// and NumPy-behaviour modes; recorded by tests/data/promotion/gen_tf.py).
#include <sstream>

#include "core/promote/tf_engine.h"
#include "tests/core/promotion_golden.h"

namespace pl::promote {
namespace {

using testing::GoldenFile;

const GoldenFile& golden() {
  static const GoldenFile g(
      "tf_cpu.json", [](DType t) { return std::string(tf::python_name(t)); },
      [](const std::string& n) { return tf::from_python_name(n); });
  return g;
}

TEST(TfPromotion, GoldenIsTensorFlow221) {
  EXPECT_EQ(golden().json().value("version", ""), std::string(tf::kVersion));
  EXPECT_EQ(golden().dtypes().size(), 23u);
}

TEST(TfPromotion, EveryOpEveryOperandKindEveryPair) {
  const auto& g = golden();
  const auto& ts = g.dtypes();
  size_t cells = 0;
  for (const auto& [cname, cfg] : g.json()["configs"].items()) {
    const tf::Config config{cname == "all"};
    EXPECT_TRUE(cname == "all" || cname == "default") << cname;
    for (const auto& [key, table] : cfg["tables"].items()) {
      const testing::TableKey tk = testing::parse_table_key(key);
      const auto op = tf::parse_op(tk.op);
      ASSERT_TRUE(op) << key;
      const std::vector<std::string>& kinds = tk.kinds;
      const auto ka = parse_operand_kind(kinds.at(0)), kb = parse_operand_kind(kinds.at(1));
      ASSERT_TRUE(ka && kb) << key;
      cells += g.check_node(cname + " " + key, table, [&](const std::vector<size_t>& at) {
        return tf::evaluate(config, *op, {ts[at[0]], *ka}, {ts[at[1]], *kb});
      });
    }
  }
  // Two modes; add, multiply, truediv x 3 operand-kind pairs; matmul and cast; 23 x 23 each.
  EXPECT_EQ(cells, 2u * (3u * 3u + 2u) * 23u * 23u);
}

}  // namespace
}  // namespace pl::promote
