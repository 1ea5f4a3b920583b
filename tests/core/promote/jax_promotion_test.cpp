// Every cell of the JAX golden tables (JAX 0.10.2 on the CPU, recorded by
// tests/data/promotion/gen_jax.py) in each configuration: x64 off, x64 on, strict.
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/promote/engine.h"
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

// What the texts around the answers say, each checked by running JAX 0.10.2 (ml_dtypes 0.6.0):
// an array cast to int64 with x64 off holds int32, so a fix said "x becomes jnp.int64" of an
// array that became int32.
TEST(JaxTexts, AFixSaysTheDtypeTheArrayHolds) {
  const Engine* e = find_engine("jax-strict");
  ASSERT_NE(e, nullptr);
  const auto fixes = suggest_fixes(*e, Query{"add", {DType::uint64}, {DType::int64}, std::nullopt});
  ASSERT_GE(fixes.size(), 2u);
  EXPECT_EQ(fixes[0].effect, "x becomes jnp.int32");
  EXPECT_EQ(fixes[1].effect, "w becomes jnp.uint32");
  const Engine* x64 = find_engine("jax-x64");
  ASSERT_NE(x64, nullptr);
  EXPECT_EQ(suggest_fixes(*x64, Query{"add", {DType::float32}, {DType::float64}, std::nullopt}).at(0).effect,
            "x becomes jnp.float64");
  // A complex array cast to a real dtype loses its imaginary part, and the fix says so.
  const auto complex = suggest_fixes(*e, Query{"add", {DType::complex64}, {DType::float32}, std::nullopt});
  ASSERT_GE(complex.size(), 1u);
  EXPECT_EQ(complex[0].effect, "x becomes jnp.float32, its imaginary part dropped");
}

// Bug: matmul_f32acc's rule said how XLA converts the inputs and sums ("each input is converted to
// float32 as it is"), which the recorded tables (dtypes from jax.eval_shape) do not show.
TEST(JaxTexts, MatmulF32AccSaysOnlyTheDtype) {
  const Engine* e = find_engine("jax");
  ASSERT_NE(e, nullptr);
  const Outcome o = e->evaluate(Query{"matmul_f32acc", {DType::bfloat16}, {DType::float16}, std::nullopt});
  ASSERT_EQ(o.result, DType::float32) << o.message;
  EXPECT_EQ(o.rule.find("as it is"), std::string::npos) << o.rule;
  EXPECT_NE(o.rule.find("preferred_element_type=float32 makes the product float32"), std::string::npos) << o.rule;
}

// A weak Python scalar adopts the array's dtype only where the bound is that dtype: float16 and a
// Python complex give complex64 (jnp.add(jnp.zeros(2, jnp.float16), 2.5+1j).dtype, JAX 0.10.2),
// not the array's float16, and the rule must not say it adopts that.
TEST(JaxTexts, AScalarAdoptsTheArraysTypeOnlyWhereTheBoundIsThatType) {
  Operand complex{DType::complex128, OperandKind::Scalar};
  complex.value = "2.5+1j";
  const Outcome lifted = jax::evaluate({false, false}, jax::Op::Add, {DType::float16}, complex);
  EXPECT_EQ(lifted.result, DType::complex64);
  EXPECT_EQ(lifted.rule.find("adopts the array's type"), std::string::npos) << lifted.rule;
  EXPECT_NE(lifted.rule.find("float16 is not of its kind"), std::string::npos) << lifted.rule;
  Operand integer{DType::int64, OperandKind::Scalar};
  integer.value = "3";
  const Outcome adopted = jax::evaluate({false, false}, jax::Op::Add, {DType::int8}, integer);
  EXPECT_EQ(adopted.result, DType::int8);
  EXPECT_NE(adopted.rule.find("adopts the array's type"), std::string::npos) << adopted.rule;
}

// JAX's promotion reads a zero-dim array's dtype only, and the engines do not build one from a
// value (jnp.asarray(300, dtype=jnp.int8) raises before any op): a zero-dim value is refused, a
// Python scalar's is modelled.
TEST(JaxTexts, AZeroDimValueIsRefusedAScalarsIsRead) {
  for (const char* id : {"jax", "jax-x64", "jax-strict"}) {
    const Engine* e = find_engine(id);
    ASSERT_NE(e, nullptr);
    EXPECT_FALSE(models_value(e->values, OperandKind::ZeroDim)) << id;
    EXPECT_TRUE(models_value(e->values, OperandKind::Scalar)) << id;
    EXPECT_NE(unmodelled_value_message(*e, OperandKind::ZeroDim).find("its dtype, never its value"), std::string::npos);
  }
}

TEST(JaxTexts, APythonScalarIsNamedByItsClassAndTheStrictRuleSaysWhatItTakes) {
  Operand scalar{DType::float64, OperandKind::Scalar};
  scalar.value = "2.5";
  const Outcome o = jax::evaluate({false, true}, jax::Op::Add, {DType::int32}, scalar);
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.message.find("Input dtypes ('int32', \"<class 'float'>\") have no"), std::string::npos) << o.message;
  EXPECT_NE(o.rule.find("a Python int, float or complex takes an array's dtype only when"), std::string::npos)
      << o.rule;
}

// A Python int too large for jit's default integer raised OverflowError, and the only fix offered,
// the arrays cast to float32, raised it too. Written as a Python float it works (JAX 0.10.2:
// int32 + float(2**40) is float32 with x64 off; NumPy 2.4: uint8 + float(1000) is float64).
TEST(JaxTexts, APythonIntTooLargeIsOfferedAsAFloat) {
  const Engine* e = find_engine("jax");
  ASSERT_NE(e, nullptr);
  Query q{"add", {DType::int32}, {DType::int64, OperandKind::Scalar}, std::nullopt};
  q.b.value = "2**40";
  ASSERT_EQ(e->evaluate(q).error_type, "OverflowError");
  const auto fixes = suggest_fixes(*e, q);
  ASSERT_FALSE(fixes.empty());
  EXPECT_EQ(fixes.back().code, "float(2**40)");
  EXPECT_EQ(fixes.back().outcome.result, DType::float32);
  const Engine* np = find_engine("numpy");
  ASSERT_NE(np, nullptr);
  Query u{"add", {DType::uint8}, {DType::int64, OperandKind::Scalar}, std::nullopt};
  u.b.value = "1000";
  const auto np_fixes = suggest_fixes(*np, u);
  ASSERT_FALSE(np_fixes.empty());
  EXPECT_EQ(np_fixes.back().code, "float(1000)");
  EXPECT_EQ(np_fixes.back().outcome.result, DType::float64);
}

TEST(JaxTexts, WhatTheTraceGivesButTheCpuCannotRunIsSaid) {
  const jax::Config x32{false, false};
  const Outcome f6 = jax::evaluate(x32, jax::Op::Add, {DType::float6_e2m3fn}, {DType::float6_e2m3fn});
  ASSERT_TRUE(f6.ok());
  EXPECT_NE(f6.rule.find("cannot make float6 arrays"), std::string::npos) << f6.rule;
  const Outcome int4 = jax::evaluate(x32, jax::Op::MatmulF32Acc, {DType::int4}, {DType::int4});
  ASSERT_TRUE(int4.ok());
  EXPECT_NE(int4.rule.find("custom element sizes"), std::string::npos) << int4.rule;
  const Outcome int8 = jax::evaluate(x32, jax::Op::MatmulF32Acc, {DType::int8}, {DType::uint8});
  ASSERT_TRUE(int8.ok());
  EXPECT_EQ(int8.rule.find("custom element sizes"), std::string::npos);
  // The type rule picks int8 by signedness; the product is float32 all the same.
  EXPECT_NE(int8.rule.find("then signedness): int8; preferred_element_type=float32 makes"), std::string::npos)
      << int8.rule;
  const Outcome drop = jax::evaluate(x32, jax::Op::Astype, {DType::complex64}, {DType::float32});
  EXPECT_NE(drop.rule.find("drops the imaginary part"), std::string::npos) << drop.rule;
}

// Bug: a float32 array and a Python float (2.5) were said to be "Both float32": the scalar is
// weakly typed (jax reports weak_type=True for it) and gives way to the array.
TEST(JaxTexts, APythonScalarIsNotSaidToHaveTheArraysDtype) {
  const jax::Config x32{false, false};
  for (const DType t : {DType::float32, DType::int32}) {
    const Outcome o = jax::evaluate(x32, jax::Op::Add, {t}, {t, OperandKind::Scalar});
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o.result, t);
    EXPECT_EQ(o.rule.find("Both are"), std::string::npos) << o.rule;
    EXPECT_NE(o.rule.find("a Python scalar is weakly typed and adopts the array's type"), std::string::npos) << o.rule;
  }
  EXPECT_NE(jax::evaluate(x32, jax::Op::Add, {DType::float32}, {DType::float32}).rule.find("Both are float32"),
            std::string::npos);
}

// Bug: the run-time notes were added wider than they hold: every matmul into float32 with one
// 4-bit operand was said to raise (only two arrays of one 4-bit dtype do), and a float6 dtype
// labelling a Python scalar's column was said to make a float6 array. Each call run on the CPU
// (gen_jax_runtime.py) gets the note exactly where it raised.
TEST(JaxTexts, TheRunTimeNotesAreWhereTheRecordedRunsRaised) {
  std::ifstream in(std::string(PL_PROMOTION_DIR) + "/jax_runtime_cpu.json");
  ASSERT_TRUE(in);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["versions"]["jax"], std::string(jax::kVersion));
  const jax::Config x32{false, false};
  size_t raised = 0, calls = 0;
  for (const auto& call : j["calls"]) {
    const auto a = jax::from_python_name(call["a"].get<std::string>());
    const auto b = jax::from_python_name(call["b"].get<std::string>());
    ASSERT_TRUE(a && b) << call.dump();
    const auto kind = [](const nlohmann::json& k) {
      return k.get<std::string>() == "scalar" ? OperandKind::Scalar : OperandKind::Tensor;
    };
    const jax::Op op = call["op"] == "add" ? jax::Op::Add : jax::Op::MatmulF32Acc;
    const Outcome o = jax::evaluate(x32, op, {*a, kind(call["a_kind"])}, {*b, kind(call["b_kind"])});
    if (!o.ok()) continue;  // (a trace that raises says so itself; the runs are about traces that succeed)
    const bool raises = call.contains("raises");
    EXPECT_EQ(o.rule.find("(That is the trace:") != std::string::npos, raises) << call.dump() << "\n" << o.rule;
    raised += raises;
    ++calls;
  }
  EXPECT_GE(calls, 100u);
  EXPECT_GE(raised, 20u);
}

}  // namespace
}  // namespace pl::promote
