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
  // The engines say "oneDNN off": the recording's setup (gen_tf.py refuses any other).
  EXPECT_EQ(golden().json().value("device", ""), "cpu, TF_ENABLE_ONEDNN_OPTS=0");
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

// tf_onednn_cpu.json: matmul recorded with oneDNN on (gen_tf_onednn.py). The engine models oneDNN
// off; where the two recordings differ, and only there, its rule says what the message begins
// with instead, and that beginning makes the engine's message the recorded one.
TEST(TfPromotion, MatmulRuleSaysWhatOneDnnPrintsExactlyWhereItDiffers) {
  const auto& off = golden();
  const GoldenFile on(
      "tf_onednn_cpu.json", [](DType t) { return std::string(tf::python_name(t)); },
      [](const std::string& n) { return tf::from_python_name(n); });
  ASSERT_EQ(on.json().value("version", ""), std::string(tf::kVersion));
  ASSERT_EQ(on.json().value("device", ""), "cpu, TF_ENABLE_ONEDNN_OPTS=1");
  ASSERT_EQ(on.dtypes(), off.dtypes());
  const std::string key = "matmul:tensor,tensor", note = "With oneDNN on (TF_ENABLE_ONEDNN_OPTS=1) the message begins";
  const auto& ts = off.dtypes();
  size_t differing = 0;
  for (const std::string mode : {"default", "all"}) {
    const auto& t_off = off.json()["configs"][mode]["tables"][key];
    const auto& t_on = on.json()["configs"][mode]["tables"][key];
    for (size_t i = 0; i < ts.size(); ++i)
      for (size_t j = 0; j < ts.size(); ++j) {
        const std::string want_off = off.text_of(off.json()["outcomes"][t_off[i][j].get<size_t>()]);
        const std::string want_on = on.text_of(on.json()["outcomes"][t_on[i][j].get<size_t>()]);
        const Outcome o =
            tf::evaluate({mode == "all"}, tf::Op::Matmul, {ts[i], OperandKind::Tensor}, {ts[j], OperandKind::Tensor});
        const std::string cell =
            mode + " " + std::string(tf::python_name(ts[i])) + " x " + std::string(tf::python_name(ts[j]));
        ASSERT_EQ(off.text_of(o), want_off) << cell;
        const size_t at = o.rule.find(note);
        EXPECT_EQ(at != std::string::npos, want_on != want_off) << cell << ": " << o.rule;
        if (want_on == want_off || at == std::string::npos) continue;
        ++differing;
        // The rule's quoted beginning, put in place of the recorded message's own.
        const size_t q0 = o.rule.find('"', at), q1 = o.rule.find('"', q0 + 1);
        ASSERT_NE(q1, std::string::npos) << o.rule;
        const std::string begins = o.rule.substr(q0 + 1, q1 - q0 - 1);
        std::string moved = off.text_of(o);
        const std::string from = "cannot compute MatMul";
        ASSERT_NE(moved.find(from), std::string::npos) << moved;
        moved.replace(moved.find(from), from.size(), begins);
        EXPECT_EQ(moved, want_on) << cell;
      }
  }
  EXPECT_EQ(differing, 29u);  // float32 with each other dtype (21), and 8 that tf-numpy leaves to it
}

}  // namespace
}  // namespace pl::promote
