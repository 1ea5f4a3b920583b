// Every cell of the PyTorch golden tables (recorded from the real library by
// tests/data/promotion/gen_torch.py): result dtype, or exception type and exact text.
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/promote/engine.h"
#include "core/promote/torch_autocast.h"
#include "core/promote/torch_engine.h"
#include "core/promote/torch_names.h"
#include "tests/core/promotion_golden.h"

namespace pl::promote {
namespace {

const testing::GoldenFile& golden_file() {
  static const testing::GoldenFile g(
      "torch_cpu.json", [](DType t) { return std::string(torch::python_name(t)); },
      [](const std::string& n) { return torch::from_python_name(n); });
  return g;
}
const nlohmann::json& golden() { return golden_file().json(); }
const std::vector<DType>& golden_dtypes() { return golden_file().dtypes(); }

// Checks one table; `engine` gets the cell's dtypes.
template <typename Fn>
size_t check_table(const std::string& table, Fn&& engine) {
  return golden_file().check(table, [&](const std::vector<size_t>& at) {
    std::vector<DType> ts;
    for (size_t i : at) ts.push_back(golden_dtypes()[i]);
    return engine(ts);
  });
}

// Every table of a torch golden file but promote_types, through `evaluate` (plain PyTorch
// or autocast): 4 elementwise ops x 7 operand-kind pairs, 7 two-operand ops and .to from a
// zero-dim source, 25 x 25 cells each; 4 ops with every bias dtype, 25^3 cells each. Returns the number of cells.
using TorchEvaluate = std::function<Outcome(torch::Op, Operand, Operand, std::optional<DType>)>;
size_t check_op_tables(const testing::GoldenFile& g, TorchEvaluate evaluate) {
  size_t cells = 0;
  for (const auto& [key, unused] : g.json()["tables"].items()) {
    if (key == "promote_types") continue;
    const testing::TableKey tk = testing::parse_table_key(key);
    const auto op = torch::parse_op(tk.op);
    EXPECT_TRUE(op) << key;
    const auto ka = parse_operand_kind(tk.kinds.at(0)), kb = parse_operand_kind(tk.kinds.at(1));
    EXPECT_TRUE(ka && kb) << key;
    if (!op || !ka || !kb) continue;
    const bool with_bias = tk.kinds.size() == 3;
    cells += g.check(key, [&](const std::vector<size_t>& at) {
      const auto& ts = g.dtypes();
      return evaluate(*op, {ts[at[0]], *ka}, {ts[at[1]], *kb},
                      with_bias ? std::optional<DType>(ts[at[2]]) : std::nullopt);
    });
  }
  return cells;
}
constexpr size_t kOpCells = (4u * 7u + 8u) * 25u * 25u + 4u * 25u * 25u * 25u;

// A 1.13 table (Debian 12's python3-torch 1.13.1, which reports 1.13.0a0; only its 13 dtypes):
// recorded with oneDNN as `mkldnn` says, its promote_types under `release`, every op table
// through `evaluate`. Returns the file for the checks particular to it.
const testing::GoldenFile& check_torch113_file(const std::string& file, const std::string& mkldnn,
                                               torch::Release release, const TorchEvaluate& evaluate) {
  static std::map<std::string, testing::GoldenFile> files;
  const testing::GoldenFile& g = files
                                     .try_emplace(
                                         file, file, [](DType t) { return std::string(torch::python_name(t)); },
                                         [](const std::string& n) { return torch::from_python_name(n); })
                                     .first->second;
  EXPECT_EQ(g.json().value("version", ""), "1.13.0a0");
  EXPECT_EQ(g.json().value("mkldnn", ""), mkldnn);
  const auto& ts = g.dtypes();
  EXPECT_EQ(ts.size(), 13u);
  if (ts.size() != 13u) return g;
  g.check("promote_types",
          [&](const std::vector<size_t>& at) { return torch::promote_types(ts[at[0]], ts[at[1]], release); });
  EXPECT_EQ(check_op_tables(g, evaluate), (4u * 7u + 7u) * 13u * 13u + 4u * 13u * 13u * 13u);
  return g;
}

TEST(TorchPromotion, GoldenIsPyTorch215) {
  EXPECT_EQ(golden().value("version", ""), std::string(torch::kVersion));
  EXPECT_EQ(golden().value("mkldnn", ""), "disabled");  // the path a CPU without AVX-512 takes
  EXPECT_EQ(golden_dtypes().size(), 25u);
}

TEST(TorchPromotion, PromoteTypesEveryPair) {
  const size_t n =
      check_table("promote_types", [](const std::vector<DType>& t) { return torch::promote_types(t[0], t[1]); });
  EXPECT_EQ(n, 25u * 25u);
}

TEST(TorchPromotion, EveryOpEveryOperandKindEveryPair) {
  EXPECT_EQ(check_op_tables(golden_file(), [](torch::Op op, Operand a, Operand b,
                                              std::optional<DType> bias) { return torch::evaluate(op, a, b, bias); }),
            kOpCells);
}

// Debian 12's python3-torch 1.13.1 (it reports 1.13.0a0), recorded by the same script:
// 13 dtypes (no uint16/32/64, bcomplex32, float8 or fp4).
TEST(Torch113Promotion, EveryOpEveryOperandKindEveryPair) {
  // Recorded with oneDNN off: the bfloat16 convolutions of a CPU without AVX-512 (gen_torch.py
  // --no-mkldnn says how an AVX-512 CPU differs).
  const auto& g = check_torch113_file("torch1.13_cpu.json", "disabled", torch::Release::V1_13,
                                      [](torch::Op op, Operand a, Operand b, std::optional<DType> bias) {
                                        return torch::evaluate(op, a, b, bias, torch::Release::V1_13);
                                      });
  const auto& ts = g.dtypes();
  for (const auto& row : all_dtypes())
    EXPECT_EQ(torch::has_dtype(torch::Release::V1_13, row.id), std::find(ts.begin(), ts.end(), row.id) != ts.end())
        << name(row.id);
}

}  // namespace
}  // namespace pl::promote

namespace pl::promote {
namespace {

TEST(OutcomeClass, KeptWidenedNarrowedError) {
  auto eval = [](DType a, DType b, OperandKind kb = OperandKind::Tensor) {
    return torch::evaluate(torch::Op::Add, {a}, {b, kb});
  };
  EXPECT_EQ(classify(DType::float32, DType::float64, eval(DType::float32, DType::float64)), OutcomeClass::Kept);
  EXPECT_EQ(classify(DType::float16, DType::bfloat16, eval(DType::float16, DType::bfloat16)), OutcomeClass::Widened);
  EXPECT_EQ(classify(DType::int64, DType::float16, eval(DType::int64, DType::float16)), OutcomeClass::Narrowed);
  EXPECT_EQ(classify(DType::float16, DType::float64, eval(DType::float16, DType::float64, OperandKind::ZeroDim)),
            OutcomeClass::Narrowed);
  EXPECT_EQ(classify(DType::float8_e4m3fn, DType::float32, eval(DType::float8_e4m3fn, DType::float32)),
            OutcomeClass::Error);
  // By values, not bytes: float32 loses int32's digits past 2^24 and float16 int16's past 2^11
  // (sized by bytes both read as keeping an operand's dtype); int8 fits float16 exactly.
  EXPECT_EQ(classify(DType::int32, DType::float32, eval(DType::int32, DType::float32)), OutcomeClass::Narrowed);
  EXPECT_EQ(classify(DType::int16, DType::float16, eval(DType::int16, DType::float16)), OutcomeClass::Narrowed);
  EXPECT_EQ(classify(DType::int8, DType::float16, eval(DType::int8, DType::float16)), OutcomeClass::Kept);
  EXPECT_EQ(classify(DType::uint8, DType::int8, eval(DType::uint8, DType::int8)), OutcomeClass::Widened);
  EXPECT_EQ(classify(DType::int32, DType::float64, eval(DType::int32, DType::float64)), OutcomeClass::Kept);
}

TEST(OutcomeClass, HoldsEveryValueByPrecisionAndRange) {
  EXPECT_TRUE(holds_every_value(DType::float16, DType::float32));
  EXPECT_FALSE(holds_every_value(DType::float16, DType::bfloat16));  // 10 fraction bits into 7
  EXPECT_FALSE(holds_every_value(DType::bfloat16, DType::float16));  // 3.4e38 into 65504
  EXPECT_TRUE(holds_every_value(DType::uint8, DType::bfloat16));     // 8 bits, bfloat16's p = 8
  EXPECT_FALSE(holds_every_value(DType::int64, DType::float64));
  EXPECT_TRUE(holds_every_value(DType::bool_, DType::float8_e4m3fn));
  EXPECT_FALSE(holds_every_value(DType::float32, DType::int64));
  EXPECT_TRUE(holds_every_value(DType::float32, DType::complex64));
  EXPECT_FALSE(holds_every_value(DType::complex64, DType::float64));
  EXPECT_TRUE(holds_every_value(DType::uint16, DType::int32));
  EXPECT_FALSE(holds_every_value(DType::int8, DType::uint64));
}

// Bug: a Python scalar b counted by its dtype's category alone, so uint8 + 1000 -> uint8 was
// drawn grey ("one operand's dtype") though 1000 is no uint8 value and the sum wraps (scenario 04).
// A scalar's class asks whether the result holds its value.
TEST(OutcomeClass, AScalarIsNarrowedWhereTheResultCannotHoldItsValue) {
  auto value = [](const char* literal, DType t) { return *scalar_operand_value(literal, t); };
  EXPECT_FALSE(holds_value(value("1000", DType::int64), DType::uint8));
  EXPECT_TRUE(holds_value(value("200", DType::int64), DType::uint8));
  EXPECT_FALSE(holds_value(value("-1", DType::int64), DType::uint8));
  EXPECT_TRUE(holds_value(value("-128", DType::int64), DType::int8));
  EXPECT_TRUE(holds_value(value("2048", DType::int64), DType::float16));
  EXPECT_FALSE(holds_value(value("2049", DType::int64), DType::float16));  // 11 significant bits
  EXPECT_FALSE(holds_value(value("9007199254740993", DType::int64), DType::float64));
  // 2^127 - 1 rounds to the double 2^127, which no __int128 holds (its conversion is undefined).
  EXPECT_FALSE(holds_value(value("170141183460469231731687303715884105727", DType::int64), DType::float32));
  EXPECT_TRUE(holds_value(value("0.5", DType::float64), DType::float16));
  EXPECT_FALSE(holds_value(value("0.1", DType::float64), DType::float16));
  EXPECT_FALSE(holds_value(value("1e6", DType::float64), DType::float16));  // past 65504
  EXPECT_TRUE(holds_value(value("3.0", DType::float64), DType::int8));
  EXPECT_FALSE(holds_value(value("2.5", DType::float64), DType::int8));
  EXPECT_TRUE(holds_value(value("1+2j", DType::complex128), DType::complex64));
  EXPECT_FALSE(holds_value(value("1+2j", DType::complex128), DType::float32));
  EXPECT_TRUE(holds_value(value("True", DType::bool_), DType::bool_));
  auto add = [](DType a, const char* literal, DType b) {
    Operand scalar{b, OperandKind::Scalar};
    scalar.value = literal;
    return torch::evaluate(torch::Op::Add, {a}, scalar);
  };
  EXPECT_EQ(classify_scalar(DType::uint8, value("1000", DType::int64), add(DType::uint8, "1000", DType::int64)),
            OutcomeClass::Narrowed);
  EXPECT_EQ(classify_scalar(DType::uint8, value("200", DType::int64), add(DType::uint8, "200", DType::int64)),
            OutcomeClass::Kept);
  EXPECT_EQ(classify_scalar(DType::bool_, value("1000", DType::int64), add(DType::bool_, "1000", DType::int64)),
            OutcomeClass::Widened);  // -> int64
  const Engine* torch = find_engine("torch");
  ASSERT_NE(torch, nullptr);
  Query q{"add", {DType::uint8}, {DType::int64, OperandKind::Scalar}, std::nullopt};
  q.b.value = "1000";
  EXPECT_EQ(scalar_not_held(*torch, q, torch->evaluate(q)),
            "1000 is not a torch.uint8 value (0 to 255): the result cannot hold it");
  q.b.value = "100";
  EXPECT_EQ(scalar_not_held(*torch, q, torch->evaluate(q)), "");
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

// Bug: a fix's cast was taken to succeed, so torch.int4 + torch.float32 offered x.to(w.dtype)
// giving float32, and an int8 input offered model.to(x.dtype) giving int8. PyTorch 2.15 has no
// copy from int4 ("copy_" not implemented for 'Int4'), and Module.to refuses integer dtypes.
TEST(PromotionFixes, AFixWhoseCastRaisesRaisesThatError) {
  const Engine* e = find_engine("torch");
  ASSERT_NE(e, nullptr);
  const auto shell = suggest_fixes(*e, Query{"add", {DType::int4}, {DType::float32}, std::nullopt});
  ASSERT_EQ(shell.size(), 3u);
  for (size_t i : {0u, 1u, 2u}) {  // x.to(w.dtype); w.to(x.dtype); x.float(); w.float()
    EXPECT_EQ(shell[i].outcome.error_type, "NotImplementedError") << shell[i].code;
    EXPECT_EQ(shell[i].outcome.message, "\"copy_\" not implemented for 'Int4'") << shell[i].code;
  }
  EXPECT_EQ(shell[1].code, "w.to(x.dtype)");  // an elementwise op's w is a tensor, not a module's
  const auto int8 = suggest_fixes(*e, Query{"linear", {DType::int8}, {DType::float32}, std::nullopt});
  ASSERT_EQ(int8.size(), 3u);
  EXPECT_EQ(int8[0].outcome.result, DType::float32);
  EXPECT_EQ(int8[1].code, "model.to(x.dtype)");
  EXPECT_EQ(int8[1].outcome.error_type, "TypeError");
  EXPECT_EQ(int8[1].outcome.message,
            "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.int8");
  // NumPy's astype of an array converts int8 freely: the fix stands.
  const auto numpy = suggest_fixes(*find_engine("numpy"), Query{"matmul", {DType::int8}, {DType::float32}});
  ASSERT_FALSE(numpy.empty());
  EXPECT_TRUE(numpy[1].outcome.ok());
}

// Bug: the all-float32 fix read "x.float(); model.float()": x.float() returns a new tensor and
// leaves x float64, so the layer still raises (scenario 20 teaches the rebinding). A tensor's or
// an array's cast is bound to its name; a module converts its own parameters.
TEST(PromotionFixes, ACastTensorIsBoundToItsName) {
  const auto torch = suggest_fixes(*find_engine("torch"), Query{"linear", {DType::float64}, {DType::float16}});
  ASSERT_FALSE(torch.empty());
  EXPECT_EQ(torch.back().code, "x = x.float(); model.float()");
  const auto numpy = suggest_fixes(*find_engine("numpy"), Query{"matmul", {DType::float16}, {DType::int32}});
  ASSERT_FALSE(numpy.empty());
  EXPECT_EQ(numpy.back().code.rfind("x = x.astype(", 0), 0u) << numpy.back().code;
  EXPECT_NE(numpy.back().code.find("; w = w.astype("), std::string::npos) << numpy.back().code;
}

// A module's .to() and .float() convert its floating-point parameters only (an int8 weight stays
// int8), and a fix casts the bias too: an int4 bias has no copy to float32 (torch 2.15.0).
TEST(PromotionFixes, AModuleKeepsItsIntegerWeightAndTheBiasIsCastToo) {
  const Engine* e = find_engine("torch");
  ASSERT_NE(e, nullptr);
  const auto int8_weight = suggest_fixes(*e, Query{"linear", {DType::float16}, {DType::int8}, std::nullopt});
  ASSERT_EQ(int8_weight.size(), 2u);  // (model.to(x.dtype) leaves the int8 weight: no change, no fix)
  EXPECT_EQ(int8_weight[1].code, "x = x.float(); model.float()");
  EXPECT_NE(int8_weight[1].effect.find("w stays torch.int8"), std::string::npos) << int8_weight[1].effect;
  EXPECT_EQ(int8_weight[1].outcome.error_type, "RuntimeError");  // float32 x against the int8 weight
  const auto int4_bias = suggest_fixes(*e, Query{"linear", {DType::float32}, {DType::float32}, DType::int4});
  ASSERT_FALSE(int4_bias.empty());
  EXPECT_EQ(int4_bias[0].code, "bias.to(x.dtype)");
  EXPECT_EQ(int4_bias[0].outcome.message, "\"copy_\" not implemented for 'Int4'");
}

// Which ops' weights are a module's is one list in the engine table: every PyTorch engine has
// the layers' forwards (and only those), and an array library has none.
TEST(PromotionFixes, TheLayerOpsAreTheEngineTables) {
  for (const Engine& e : engines()) {
    const std::vector<std::string_view> expected = e.framework == "torch"
                                                       ? std::vector<std::string_view>{"linear", "conv1d", "conv2d"}
                                                       : std::vector<std::string_view>{};
    EXPECT_EQ(e.layer_ops, expected) << e.id;
    for (std::string_view op : e.layer_ops) {
      EXPECT_NE(std::find(e.ops.begin(), e.ops.end(), op), e.ops.end()) << e.id << " " << op;
      EXPECT_TRUE(is_layer_op(e, op)) << e.id << " " << op;
    }
    EXPECT_FALSE(is_layer_op(e, "matmul")) << e.id;
  }
}

// Module.to and Module.float convert a module's floating-point parameters only and never touch an
// integer or bool one, so its cast cannot raise; a Python scalar, a bias's own .to() and an
// elementwise op's w are no module's parameters. Every outcome here is PyTorch 2.15's, run.
TEST(PromotionFixes, OnlyAModuleCastLeavesIntegerParametersAndTheEffectSaysSo) {
  const Engine* e = find_engine("torch");
  ASSERT_NE(e, nullptr);
  // float32 tensor + the Python int 2**64 (OverflowError): float(2**64) gives float32.
  const auto big = suggest_fixes(*e, Query{"add", {DType::float32}, {DType::int64, OperandKind::Scalar, "2**64"}});
  ASSERT_FALSE(big.empty());
  EXPECT_EQ(big.back().code, "float(2**64)");
  EXPECT_EQ(big.back().outcome.result, DType::float32) << big.back().outcome.message;
  EXPECT_EQ(big.back().effect, "the Python int becomes a Python float");
  // model.float() leaves an int4 weight alone: the product then refuses the two dtypes; and a fix
  // that, so read, changes nothing (model.to(x.dtype) of a float16 or float32 x) is not offered.
  const auto int4 = suggest_fixes(*e, Query{"linear", {DType::int8}, {DType::int4}, std::nullopt});
  ASSERT_EQ(int4.size(), 3u);
  EXPECT_EQ(int4[2].code, "x = x.float(); model.float()");
  EXPECT_EQ(int4[2].outcome.message,
            "expected m1 and m2 to have the same dtype, but got: float != c10::dummy_int1_7_t<4>");
  EXPECT_EQ(int4[2].effect,
            "x becomes torch.float32; w stays torch.int4: a module converts its floating-point parameters only");
  const auto uint4 = suggest_fixes(*e, Query{"linear", {DType::float16}, {DType::uint4}, std::nullopt});
  ASSERT_EQ(uint4.size(), 2u);  // model.to(x.dtype) leaves the uint4 weight: it changes nothing
  EXPECT_EQ(uint4[1].code, "x = x.float(); model.float()");
  EXPECT_EQ(uint4[1].outcome.error_type, "RuntimeError");
  EXPECT_EQ(uint4[1].effect,
            "x becomes torch.float32; w stays torch.uint4: a module converts its floating-point parameters only");
  const auto unchanged = suggest_fixes(*e, Query{"linear", {DType::float32}, {DType::uint4}, std::nullopt});
  ASSERT_EQ(unchanged.size(), 1u);  // model.to(x.dtype) and x.float(); model.float() change nothing
  EXPECT_EQ(unchanged[0].code, "x.to(w.dtype)");
  // Bug: the plain products (matmul, mm, bmm, addmm) were given a module's fixes: mm(float16,
  // int32) said model.float() leaves w int32 and raises, and offered no w.to(x.dtype), where
  // torch.mm(x, w.to(x.dtype)) gives float16 and x.float(); w.float() float32 (run in PyTorch 2.15).
  const auto mm = suggest_fixes(*e, Query{"mm", {DType::float16}, {DType::int32}, std::nullopt});
  ASSERT_EQ(mm.size(), 3u);
  EXPECT_EQ(mm[1].code, "w.to(x.dtype)");
  EXPECT_EQ(mm[1].outcome.result, DType::float16) << mm[1].outcome.message;
  EXPECT_EQ(mm[2].code, "x = x.float(); w = w.float()");
  EXPECT_EQ(mm[2].outcome.result, DType::float32) << mm[2].outcome.message;
  // addmm's bias is a tensor of its own: w.to(x.dtype) leaves it (PyTorch then refuses the float16
  // bias: "self and mat2 must have the same dtype"), and the all-float32 fix casts it itself.
  const auto addmm = suggest_fixes(*e, Query{"addmm", {DType::float32}, {DType::float16}, DType::float16});
  ASSERT_EQ(addmm.size(), 3u);
  EXPECT_EQ(addmm[1].code, "w.to(x.dtype)");
  EXPECT_EQ(addmm[1].outcome.message, "self and mat2 must have the same dtype, but got Half and Float");
  EXPECT_EQ(addmm[2].code, "x = x.float(); w = w.float(); bias = bias.float()");
  EXPECT_EQ(addmm[2].outcome.result, DType::float32) << addmm[2].outcome.message;
  // bias.to(x.dtype) is a tensor's cast: an int64 bias becomes float32 (model.float() would not).
  const auto int_bias = suggest_fixes(*e, Query{"linear", {DType::float32}, {DType::float32}, DType::int64});
  ASSERT_EQ(int_bias.size(), 1u);
  EXPECT_EQ(int_bias[0].code, "bias.to(x.dtype)");
  EXPECT_EQ(int_bias[0].outcome.result, DType::float32) << int_bias[0].outcome.message;
  // model.to(x.dtype) converts the float weight and leaves the int64 bias.
  const auto half = suggest_fixes(*e, Query{"linear", {DType::float16}, {DType::float32}, DType::int64});
  ASSERT_EQ(half.size(), 3u);
  EXPECT_EQ(half[1].code, "model.to(x.dtype)");
  EXPECT_EQ(half[1].effect,
            "w becomes torch.float16; bias stays torch.int64: a module converts its floating-point parameters only");
  EXPECT_EQ(half[1].outcome.message, "self and mat2 must have the same dtype, but got Long and Half");
  // Module.to refuses an integer dtype whatever the parameters: the effect is what was asked.
  const auto refused = suggest_fixes(*e, Query{"linear", {DType::int8}, {DType::int32}, DType::int64});
  ASSERT_EQ(refused.size(), 3u);
  EXPECT_EQ(refused[1].effect, "w and bias become torch.int8");
  EXPECT_EQ(refused[1].outcome.error_type, "TypeError");
  // An elementwise op's w is a tensor: w.float() casts a bool one (True - 1.0 works; bools do not).
  const auto bools = suggest_fixes(*e, Query{"sub", {DType::bool_}, {DType::bool_}, std::nullopt});
  ASSERT_EQ(bools.size(), 1u);
  EXPECT_EQ(bools[0].code, "x = x.float(); w = w.float()");
  EXPECT_EQ(bools[0].effect, "every array becomes torch.float32");
  EXPECT_EQ(bools[0].outcome.result, DType::float32);
}

// torch.addmm(input, mat1, mat2) has no form without its input (PyTorch raises a TypeError about
// its arguments): it is refused as a question, not answered as another op.
TEST(TorchPromotion, AddmmWithoutABiasIsNotAQuestion) {
  for (const Engine& e : engines()) {
    if (e.framework != "torch") continue;
    const Outcome o = e.evaluate(Query{"addmm", {DType::float32}, {DType::float32}, std::nullopt});
    EXPECT_EQ(o.error_type, "precision-lab") << e.id;
    EXPECT_NE(o.message.find("addmm takes a bias"), std::string::npos) << e.id << ": " << o.message;
  }
}

// Module.float() leaves a complex weight complex (it converts floating-point parameters only),
// so "x.float(); model.float()" would not make every array float32 as the fix says; the fix
// writes model.to(torch.float32), which converts it (torch 2.15.0).
TEST(PromotionFixes, AComplexWeightIsConvertedByModuleTo) {
  const Engine* e = find_engine("torch");
  ASSERT_NE(e, nullptr);
  const auto fixes = suggest_fixes(*e, Query{"linear", {DType::float32}, {DType::complex64}, std::nullopt});
  ASSERT_EQ(fixes.size(), 3u);
  EXPECT_EQ(fixes[2].code, "x = x.float(); model.to(torch.float32)");
  // A complex bias stays complex under Module.float() too.
  const auto bias = suggest_fixes(*e, Query{"linear", {DType::float32}, {DType::float32}, DType::complex64});
  ASSERT_FALSE(bias.empty());
  EXPECT_EQ(bias.back().code, "x = x.float(); model.to(torch.float32)");
}

// An integer meeting a complex dtype was explained as "the wider operand dtype, which holds
// every value of the other": complex64 holds int32 2^24 + 1 no better than float32 does.
TEST(TorchPromotion, AnIntegerIntoAComplexDtypeSaysWhatItsRealPartLoses) {
  const Engine* e = find_engine("torch");
  ASSERT_NE(e, nullptr);
  const Outcome o = e->evaluate(Query{"add", {DType::int32}, {DType::complex64}, std::nullopt});
  EXPECT_EQ(o.result, DType::complex64);
  EXPECT_NE(o.rule.find("its real part is torch.float32"), std::string::npos) << o.rule;
  EXPECT_NE(o.rule.find("16777217 becomes 16777216"), std::string::npos) << o.rule;
}

// Bug: two Python scalars whose first has the higher category, as add(2.5, 2), were said to give
// "the smallest that holds both (torch.float32)", which a Python float holding 2 is not: the
// result is the default dtype of the float category (PyTorch 2.15: torch.add(2.5, 2) is a
// float32 tensor), as when the higher one comes second.
TEST(TorchPromotion, PythonScalarsAloneTakeTheDefaultDtypeWhicheverComesFirst) {
  const Engine* e = find_engine("torch");
  ASSERT_NE(e, nullptr);
  const Operand f{DType::float64, OperandKind::Scalar}, i{DType::int64, OperandKind::Scalar},
      b{DType::bool_, OperandKind::Scalar}, z{DType::complex128, OperandKind::Scalar};
  for (const auto& [x, y, want] : {std::tuple{f, i, DType::float32},
                                   {i, f, DType::float32},
                                   {f, b, DType::float32},
                                   {z, f, DType::complex64},
                                   {f, z, DType::complex64}}) {
    const Outcome o = e->evaluate(Query{"add", x, y, std::nullopt});
    EXPECT_EQ(o.result, want);
    EXPECT_EQ(o.rule.find("holds both"), std::string::npos) << o.rule;
    EXPECT_NE(o.rule.find("Python scalars alone take the default dtype"), std::string::npos) << o.rule;
  }
}

// Bug: 1.13's conv1d on the CPU, which never checked the bias's dtype (recorded), said on a
// weight mismatch that "input, weight and bias must share a dtype".
TEST(TorchPromotion, Conv1dOf113SaysOnlyInputAndWeightMustShareADtype) {
  const Engine* e = find_engine("torch1.13");
  ASSERT_NE(e, nullptr);
  const Outcome o = e->evaluate(Query{"conv1d", {DType::float32}, {DType::float64}, DType::float16});
  EXPECT_EQ(o.error_type, "RuntimeError");
  EXPECT_EQ(o.rule.find("and bias must share"), std::string::npos) << o.rule;
  EXPECT_NE(o.rule.find("never checked the bias"), std::string::npos) << o.rule;
  const Outcome accepted = e->evaluate(Query{"conv1d", {DType::float32}, {DType::float32}, DType::float16});
  EXPECT_EQ(accepted.result, DType::float32);
  // 2.15 checks the bias first, and says all three.
  const Outcome now =
      find_engine("torch")->evaluate(Query{"conv1d", {DType::float32}, {DType::float64}, DType::float16});
  EXPECT_NE(now.rule.find("input, weight and bias must share"), std::string::npos) << now.rule;
}

// A float tensor and a complex zero-dim tensor give the tensor's complex counterpart: float32 and
// a complex128 1e300+1j give complex64 (inf+nanj, recorded from PyTorch 2.15 by a reviewer). The
// rule said PyTorch "picks the smallest that holds both", which complex64 does not.
TEST(TorchPromotion, AComplexZeroDimLiftsAFloatTensorToItsComplexCounterpart) {
  const Engine* e = find_engine("torch");
  ASSERT_NE(e, nullptr);
  const Outcome o =
      e->evaluate(Query{"add", {DType::float32}, {DType::complex128, OperandKind::ZeroDim}, std::nullopt});
  EXPECT_EQ(o.result, DType::complex64);
  EXPECT_EQ(o.rule.find("holds both"), std::string::npos) << o.rule;
  EXPECT_NE(o.rule.find("complex counterpart (torch.complex64)"), std::string::npos) << o.rule;
  const Outcome half =
      e->evaluate(Query{"add", {DType::float16}, {DType::complex64, OperandKind::ZeroDim}, std::nullopt});
  EXPECT_EQ(half.result, DType::complex32);
  EXPECT_NE(half.rule.find("complex counterpart"), std::string::npos) << half.rule;
  EXPECT_NE(o.rule.find("may round or overflow"), std::string::npos) << o.rule;
  // Bug: a widening cast was said to "round or overflow" too: complex64 into complex128 is exact
  // (PyTorch 2.15: z.to(complex128).to(complex64) == z for any complex64 z).
  const Outcome wide =
      e->evaluate(Query{"add", {DType::float64}, {DType::complex64, OperandKind::ZeroDim}, std::nullopt});
  EXPECT_EQ(wide.result, DType::complex128);
  EXPECT_EQ(wide.rule.find("round or overflow"), std::string::npos) << wide.rule;
  EXPECT_NE(wide.rule.find("values are cast to it exactly"), std::string::npos) << wide.rule;
  // Bug: a float8 tensor and a complex zero-dim tensor (PyTorch 2.15: "Unknown Complex ScalarType
  // for Float8_e4m3fn") were said to fail for "a complex scalar".
  const Outcome f8 =
      e->evaluate(Query{"add", {DType::float8_e4m3fn}, {DType::complex64, OperandKind::ZeroDim}, std::nullopt});
  EXPECT_EQ(f8.message, "Unknown Complex ScalarType for Float8_e4m3fn");
  EXPECT_NE(f8.rule.find("a complex scalar or zero-dim tensor cannot join it"), std::string::npos) << f8.rule;
}

// Autocast's rule said it "runs matmul in bfloat16" for float64 inputs, which it leaves alone.
TEST(TorchAutocastCpu, SaysItRunsInBFloat16OnlyWhereItDoes) {
  const Outcome f64 = torch::evaluate_autocast_cpu(torch::Op::Matmul, {DType::float64}, {DType::float64});
  EXPECT_EQ(f64.result, DType::float64);
  EXPECT_EQ(f64.rule.find("runs matmul in bfloat16"), std::string::npos) << f64.rule;
  const Outcome f32 = torch::evaluate_autocast_cpu(torch::Op::Matmul, {DType::float32}, {DType::float32});
  EXPECT_EQ(f32.result, DType::bfloat16);
  EXPECT_NE(f32.rule.find("runs matmul in bfloat16"), std::string::npos) << f32.rule;
}

// Bug: a fix cast its operand as a dimensioned tensor whatever its kind, so a zero-dim fp4
// input's x.to(w.dtype) raised "copy_kernel" not implemented; a zero-dim source takes copy_'s
// scalar path, which names "copy_" (the to:zerodim,tensor table, recorded from torch 2.15.0).
TEST(PromotionFixes, AZeroDimOperandIsCastAsZeroDim) {
  const Engine* e = find_engine("torch");
  ASSERT_NE(e, nullptr);
  const auto tensor = suggest_fixes(*e, Query{"add", {DType::float4_e2m1fn}, {DType::float32}, std::nullopt});
  ASSERT_FALSE(tensor.empty());
  EXPECT_EQ(tensor[0].outcome.message, "\"copy_kernel\" not implemented for 'Float4_e2m1fn_x2'");
  const auto zero_dim = suggest_fixes(
      *e, Query{"add", {DType::float4_e2m1fn, OperandKind::ZeroDim}, {DType::float32}, std::nullopt});
  ASSERT_FALSE(zero_dim.empty());
  EXPECT_EQ(zero_dim[0].code, "x.to(w.dtype)");
  EXPECT_EQ(zero_dim[0].outcome.message, "\"copy_\" not implemented for 'Float4_e2m1fn_x2'");
}

// A zero-dim source's .to is modelled where it was recorded (2.15's tables), not for 1.13, whose
// tables have no to:zerodim; and autocast says a matrix op with a zero-dim operand is not
// modelled before it tries the operand's cast.
TEST(PromotionFixes, ZeroDimToOnlyWhereRecorded) {
  const Operand zero_dim{DType::float4_e2m1fn, OperandKind::ZeroDim};
  Query to{"to", zero_dim, {DType::float32}, std::nullopt};
  EXPECT_EQ(find_engine("torch")->evaluate(to).message, "\"copy_\" not implemented for 'Float4_e2m1fn_x2'");
  Query to_113{"to", {DType::float32, OperandKind::ZeroDim}, {DType::float16}, std::nullopt};
  EXPECT_EQ(find_engine("torch1.13")->evaluate(to_113).error_type, "precision-lab");
  Query mm{"mm", zero_dim, {DType::float32}, std::nullopt};
  EXPECT_EQ(find_engine("torch-autocast-cpu")->evaluate(mm).error_type, "precision-lab");
}

// Bug: a module's float32 bias beside float16 x and weight was given "bias.to(x.dtype)": the
// bias is the module's own parameter, which no expression in the call replaces, so the line
// changes nothing. The module converts it; a plain product's bias is cast in the call.
TEST(PromotionFixes, BiasOfAThirdDtype) {
  const Engine* e = find_engine("torch");
  Query q{"conv2d", {DType::float16}, {DType::float16}, DType::float32};
  const auto fixes = suggest_fixes(*e, q);
  ASSERT_FALSE(fixes.empty());
  EXPECT_EQ(fixes[0].code, "model.to(x.dtype)");
  EXPECT_EQ(fixes[0].effect, "bias becomes torch.float16");
  EXPECT_EQ(fixes[0].outcome.result, DType::float16);
  const auto addmm = suggest_fixes(*e, Query{"addmm", {DType::float16}, {DType::float16}, DType::float32});
  ASSERT_FALSE(addmm.empty());
  EXPECT_EQ(addmm[0].code, "bias.to(x.dtype)");
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

namespace pl::promote {
namespace {

// The same tables recorded inside torch.autocast("cpu", dtype=torch.bfloat16).
TEST(TorchAutocastCpu, EveryOpEveryOperandKindEveryPair) {
  static const testing::GoldenFile g(
      "torch_autocast_cpu.json", [](DType t) { return std::string(torch::python_name(t)); },
      [](const std::string& n) { return torch::from_python_name(n); });
  ASSERT_EQ(g.json().value("autocast", ""), "cpu");
  ASSERT_EQ(g.json().value("autocast_dtype", ""), "bfloat16");
  EXPECT_EQ(g.json().value("version", ""), std::string(torch::kVersion));
  EXPECT_EQ(g.json().value("mkldnn", ""), "disabled");
  const auto& ts = g.dtypes();
  // autocast does not change torch.promote_types
  g.check("promote_types", [&](const std::vector<size_t>& at) { return torch::promote_types(ts[at[0]], ts[at[1]]); });
  EXPECT_EQ(check_op_tables(g, [](torch::Op op, Operand a, Operand b,
                                  std::optional<DType> bias) { return torch::evaluate_autocast_cpu(op, a, b, bias); }),
            kOpCells);
}

// The same release on a CPU with AVX-512 BW/VL/DQ, recorded with oneDNN on (gen_torch.py
// --onednn): bfloat16 convolutions go through oneDNN and word a dtype mismatch their own way.
TEST(Torch113OneDnnPromotion, EveryOpEveryOperandKindEveryPair) {
  check_torch113_file("torch1.13_cpu_onednn.json", "enabled, AVX-512 BW/VL/DQ", torch::Release::V1_13_OneDnnBf16,
                      [](torch::Op op, Operand a, Operand b, std::optional<DType> bias) {
                        return torch::evaluate(op, a, b, bias, torch::Release::V1_13_OneDnnBf16);
                      });
  // Only bfloat16 convolutions differ from the path without oneDNN.
  EXPECT_EQ(torch::evaluate(torch::Op::Conv2d, {DType::bfloat16}, {DType::float32}, std::nullopt, torch::Release::V1_13)
                .message,
            "expected scalar type BFloat16 but found Float");
}

// PyTorch 2.15 on a CPU with AVX-512 BW/VL/DQ (gen_torch.py --onednn), plain and under CPU
// autocast: the bfloat16 convolutions oneDNN runs word a weight mismatch its own way.
void check_torch215_onednn_file(const std::string& file, bool autocast) {
  const testing::GoldenFile g(
      file, [](DType t) { return std::string(torch::python_name(t)); },
      [](const std::string& n) { return torch::from_python_name(n); });
  EXPECT_EQ(g.json().value("version", ""), std::string(torch::kVersion));
  EXPECT_EQ(g.json().value("mkldnn", ""), "enabled, AVX-512 BW/VL/DQ");
  EXPECT_EQ(g.json().value("autocast", ""), autocast ? "cpu" : "");
  const auto& ts = g.dtypes();
  g.check("promote_types", [&](const std::vector<size_t>& at) { return torch::promote_types(ts[at[0]], ts[at[1]]); });
  const auto r = torch::Release::V2_15_OneDnnBf16;
  EXPECT_EQ(check_op_tables(g,
                            [&](torch::Op op, Operand a, Operand b, std::optional<DType> bias) {
                              return autocast ? torch::evaluate_autocast_cpu(op, a, b, bias, r)
                                              : torch::evaluate(op, a, b, bias, r);
                            }),
            kOpCells);
}

TEST(TorchOneDnnPromotion, EveryOpEveryOperandKindEveryPair) {
  check_torch215_onednn_file("torch_cpu_onednn.json", false);
  const Outcome o = torch::evaluate(torch::Op::Conv2d, {DType::bfloat16}, {DType::float32}, std::nullopt,
                                    torch::Release::V2_15_OneDnnBf16);
  EXPECT_EQ(o.message,
            "Input type (CPUBFloat16Type) and weight type (torch.FloatTensor) should be the same or input should "
            "be a MKLDNN tensor and weight is a dense tensor");
  // The same question without oneDNN, as the committed torch_cpu.json was recorded.
  EXPECT_EQ(torch::evaluate(torch::Op::Conv2d, {DType::bfloat16}, {DType::float32}).message,
            "expected scalar type BFloat16 but found Float");
}

TEST(TorchAutocastCpuOneDnn, EveryOpEveryOperandKindEveryPair) {
  check_torch215_onednn_file("torch_autocast_cpu_onednn.json", true);
}

// Debian 12's python3-torch 1.13.1 under torch.autocast("cpu", dtype=torch.bfloat16), recorded
// by the same script (gen_torch.py --autocast-cpu with /usr/bin/python3).
TEST(Torch113AutocastCpu, EveryOpEveryOperandKindEveryPair) {
  const auto& g = check_torch113_file("torch1.13_autocast_cpu.json", "disabled", torch::Release::V1_13,
                                      [](torch::Op op, Operand a, Operand b, std::optional<DType> bias) {
                                        return torch::evaluate_autocast_cpu(op, a, b, bias, torch::Release::V1_13);
                                      });
  EXPECT_EQ(g.json().value("autocast", ""), "cpu");
  EXPECT_EQ(g.json().value("autocast_dtype", ""), "bfloat16");
}

// Python scalars of given values (gen_torch_values.py): add, sub, mul and div of a tensor and
// of a zero-dim tensor of every dtype with each literal, in both orders for the tensor. Only ints
// past int64 change anything: 2.15 wraps one in [2**63, 2**64) as a uint64 scalar and raises
// OverflowError beyond; 1.13 raises "Overflow when unpacking long" for any.
struct ValuesFile {
  const char* file;
  torch::Release release;
  bool autocast;
  size_t dtypes;
};
void PrintTo(const ValuesFile& f, std::ostream* os) { *os << f.file; }
class TorchValues : public ::testing::TestWithParam<ValuesFile> {};

TEST_P(TorchValues, EveryDtypeWithEveryPythonValue) {
  const ValuesFile& f = GetParam();
  const testing::GoldenFile g(
      f.file, [](DType t) { return std::string(torch::python_name(t)); },
      [](const std::string& n) { return torch::from_python_name(n); });
  EXPECT_EQ(g.json().value("version", ""), torch::is_1_13(f.release) ? "1.13.0a0" : std::string(torch::kVersion));
  EXPECT_EQ(g.json().value("autocast", ""), f.autocast ? "cpu" : "");
  const auto& ts = g.dtypes();
  ASSERT_EQ(ts.size(), f.dtypes);
  std::vector<std::string> values;
  for (const auto& v : g.json()["values"]) values.push_back(v.get<std::string>());
  size_t cells = 0;
  for (const auto& [key, unused] : g.json()["tables"].items()) {
    const testing::TableKey tk = testing::parse_table_key(key);
    const auto op = torch::parse_op(tk.op);
    ASSERT_TRUE(op && tk.kinds.size() == 2u) << key;
    const bool value_first = tk.kinds[0] == "pyvalue";
    const auto kind = parse_operand_kind(tk.kinds[value_first ? 1 : 0]);
    ASSERT_TRUE(kind) << key;
    cells += g.check(key,
                     [&](const std::vector<size_t>& at) {
                       const Operand array{ts[at[0]], *kind}, scalar = testing::python_scalar(values[at[1]]);
                       const Operand& a = value_first ? scalar : array;
                       const Operand& b = value_first ? array : scalar;
                       return f.autocast ? torch::evaluate_autocast_cpu(*op, a, b, std::nullopt, f.release)
                                         : torch::evaluate(*op, a, b, std::nullopt, f.release);
                     },
                     {ts.size(), values.size()});
  }
  EXPECT_EQ(cells, 4u * 3u * f.dtypes * 34u);  // 4 ops x 3 orders x dtypes x 34 literals
}

INSTANTIATE_TEST_SUITE_P(
    Recorded, TorchValues,
    ::testing::Values(ValuesFile{"torch_values_cpu.json", torch::Release::V2_15, false, 23},
                      ValuesFile{"torch_values_autocast_cpu.json", torch::Release::V2_15, true, 23},
                      ValuesFile{"torch1.13_values_cpu.json", torch::Release::V1_13, false, 13},
                      ValuesFile{"torch1.13_values_autocast_cpu.json", torch::Release::V1_13, true, 13}),
    [](const auto& info) {
      return std::string(torch::is_1_13(info.param.release) ? "Torch113" : "Torch215") +
             (info.param.autocast ? "AutocastCpu" : "");
    });

}  // namespace
}  // namespace pl::promote

#include "core/promote/torch_matmul_precision.h"

namespace pl::promote {
namespace {

// The backend flags each torch.set_float32_matmul_precision setting leaves, recorded from
// the real library (gen_torch_matmul_precision.py), for both releases.
void check_matmul_precision_file(const std::string& file, torch::Release release) {
  std::ifstream in(std::string(PL_PROMOTION_DIR) + "/" + file);
  ASSERT_TRUE(in) << file;
  const auto j = nlohmann::json::parse(in);
  ASSERT_EQ(j["settings"].size(), 3u);
  for (const auto& [setting, recorded] : j["settings"].items()) {
    const auto p = torch::parse_matmul_precision(setting);
    ASSERT_TRUE(p) << setting;
    const torch::Float32Internals in_engine = torch::float32_internals(*p, release);
    nlohmann::json flags = nlohmann::json::object();
    for (const auto& f : in_engine.flags)
      flags[std::string(f.name)] = f.value == "True"    ? nlohmann::json(true)
                                   : f.value == "False" ? nlohmann::json(false)
                                                        : nlohmann::json(f.value);
    EXPECT_EQ(flags, recorded["flags"]) << file << " " << setting;
    // The machine that recorded it has no AMX, so its float32 CPU products must not have
    // changed; the engine says reduced CPU precision needs AMX (AMX-FP16 for TF32).
    const std::string cap = j.value("cpu_capability", "");
    if (cap == "AVX2" || cap == "unknown") {
      EXPECT_TRUE(recorded["cpu_product_same_bits_as_highest"].get<bool>()) << setting;
    }
    // Where the recording gives the CPU's flags and error: with no AMX, every setting computes in
    // float32, whether or not its bits change (an AVX-512 BF16 CPU's "medium" takes another
    // float32 kernel): its error stays a float32 product's, far below bfloat16 inputs'.
    if (j.contains("cpu_flags")) {
      bool amx = false;
      for (const auto& f : j["cpu_flags"]) amx |= f.get<std::string>().starts_with("amx");
      if (!amx) {
        const double error = recorded["cpu_product_normwise_error"].get<double>();
        EXPECT_LT(error, 10 * j["settings"]["highest"]["cpu_product_normwise_error"].get<double>()) << setting;
        EXPECT_LT(error, j["bfloat16_inputs_normwise_error"].get<double>() / 100) << setting;
      }
    }
    EXPECT_EQ(in_engine.cuda_conv, DType::tf32);
    EXPECT_EQ(in_engine.cuda_matmul, *p == torch::MatmulPrecision::Highest ? DType::float32 : DType::tf32);
  }
}

TEST(TorchMatmulPrecision, FlagsAsRecordedFrom215) {
  check_matmul_precision_file("torch_matmul_precision.json", torch::Release::V2_15);
  EXPECT_EQ(torch::float32_internals(torch::MatmulPrecision::Medium).cpu_matmul, DType::bfloat16);
}

// Recorded on an AVX-512 CPU with AVX512-BF16 and no AMX: "medium" changes the product's bits
// there, but not its precision.
TEST(TorchMatmulPrecision, FlagsAsRecordedFrom215OnAvx512) {
  check_matmul_precision_file("torch_matmul_precision_avx512.json", torch::Release::V2_15);
}

TEST(TorchMatmulPrecision, FlagsAsRecordedFrom113) {
  check_matmul_precision_file("torch1.13_matmul_precision.json", torch::Release::V1_13);
  EXPECT_EQ(torch::float32_internals(torch::MatmulPrecision::Medium, torch::Release::V1_13).cpu_matmul, DType::float32);
}

// The conditions PyTorch and oneDNN check: TF32 takes AMX-FP16 (use_mkldnn_tf32_linear), and
// bfloat16 AMX (oneDNN's bf32 kernels); AVX512-BF16 alone leaves float32 products in float32.
TEST(TorchMatmulPrecision, TheCpuConditionsAreTheOnesPyTorchAndOneDnnCheck) {
  const auto medium = torch::float32_internals(torch::MatmulPrecision::Medium);
  const auto high = torch::float32_internals(torch::MatmulPrecision::High);
  EXPECT_NE(medium.cpu_condition.find("where the CPU has AMX "), std::string::npos) << medium.cpu_condition;
  EXPECT_EQ(medium.cpu_condition.find("AVX512-BF16"), std::string::npos) << medium.cpu_condition;
  EXPECT_NE(high.cpu_condition.find("where the CPU has AMX-FP16"), std::string::npos) << high.cpu_condition;
  EXPECT_NE(medium.rule.find("on a CPU with AMX"), std::string::npos) << medium.rule;
}

TEST(TorchMatmulPrecision, Names) {
  EXPECT_EQ(torch::parse_matmul_precision("high"), torch::MatmulPrecision::High);
  EXPECT_FALSE(torch::parse_matmul_precision("low"));
  EXPECT_EQ(torch::matmul_precision_name(torch::MatmulPrecision::Medium), "medium");
}

}  // namespace
}  // namespace pl::promote

#include "core/promote/torch_cuda.h"

namespace pl::promote {
namespace {

// Spot checks of the CUDA model; TheModelMatchesTheRecordingFromAnH100 (below) checks every
// modelled cell against PyTorch 2.11.0 recorded on an H100. The conv texts are also the ones
// users report from GPUs (github.com/AnswerDotAI/byaldi/issues/48,
// Yu-Fangxu/COLD-Attack/issues/20, timeseriesAI/tsai/issues/468).
TEST(TorchCuda, ConvolutionPrintsCudaTensorTypes) {
  using torch::Op;
  EXPECT_EQ(torch::evaluate_cuda(Op::Conv2d, {DType::float32}, {DType::bfloat16}).message,
            "Input type (torch.cuda.FloatTensor) and weight type (CUDABFloat16Type) should be the same");
  EXPECT_EQ(torch::evaluate_cuda(Op::Conv2d, {DType::float16}, {DType::float32}).message,
            "Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be the same");
  EXPECT_EQ(torch::evaluate_cuda(Op::Conv1d, {DType::float64}, {DType::float32}).message,
            "Input type (torch.cuda.DoubleTensor) and weight type (torch.cuda.FloatTensor) should be the same");
  // The frontend checks the bias first, with the texts recorded on the CPU.
  const Outcome bias = torch::evaluate_cuda(Op::Conv2d, {DType::float16}, {DType::float32}, DType::float32);
  EXPECT_EQ(bias.message, "Input type (c10::Half) and bias type (float) should be the same");
  EXPECT_EQ(torch::evaluate_cuda(Op::Conv2d, {DType::bfloat16}, {DType::bfloat16}, DType::bfloat16).result,
            DType::bfloat16);
}

// The model said mm, matmul and linear printed the CPU's meta-function texts on CUDA, and that
// bmm's CUDA text was unknown; the H100 recording showed both were wrong.
TEST(TorchCuda, ProductChecksPrintTheCudaKernelsTexts) {
  using torch::Op;
  for (Op op : {Op::Matmul, Op::Mm, Op::Linear})
    EXPECT_EQ(torch::evaluate_cuda(op, {DType::float32}, {DType::float16}).message,
              "expected mat1 and mat2 to have the same dtype, but got: float != c10::Half");
  EXPECT_EQ(torch::evaluate(Op::Mm, {DType::float32}, {DType::float16}).message,
            "expected m1 and m2 to have the same dtype, but got: float != c10::Half");
  EXPECT_EQ(torch::evaluate_cuda(Op::Bmm, {DType::float32}, {DType::float16}).message,
            "expected scalar type Float but found Half");
  EXPECT_EQ(torch::evaluate_cuda(Op::Bmm, {DType::float16}, {DType::float16}).result, DType::float16);
  // With a bias, the CPU's checks come first, as on the CPU.
  for (Op op : {Op::Linear, Op::Addmm})
    for (DType bias : {DType::float32, DType::float16}) {
      const Outcome cpu = torch::evaluate(op, {DType::bfloat16}, {DType::float32}, bias);
      EXPECT_EQ(torch::evaluate_cuda(op, {DType::bfloat16}, {DType::float32}, bias).message, cpu.message);
    }
}

TEST(TorchCuda, ElementwisePromotionIsTheCpus) {
  const std::vector<DType> fs = {DType::float16, DType::bfloat16, DType::float32, DType::float64};
  for (auto op : {torch::Op::Add, torch::Op::Sub, torch::Op::Mul, torch::Op::Div})
    for (DType a : fs)
      for (DType b : fs)
        for (auto kb : {OperandKind::Tensor, OperandKind::ZeroDim, OperandKind::Scalar}) {
          const Outcome cuda = torch::evaluate_cuda(op, {a}, {b, kb});
          ASSERT_TRUE(cuda.ok());
          EXPECT_EQ(cuda.result, torch::evaluate(op, {a}, {b, kb}).result);
        }
  // A Python int joins a float16 tensor; integer and complex tensors are not modelled.
  EXPECT_EQ(torch::evaluate_cuda(torch::Op::Add, {DType::float16}, {DType::int64, OperandKind::Scalar}).result,
            DType::float16);
  EXPECT_EQ(torch::evaluate_cuda(torch::Op::Add, {DType::int32}, {DType::int32}).error_type, "precision-lab");
  // A complex scalar: complex32 on CUDA for every elementwise op (the CPU has no complex32
  // division); bfloat16's bcomplex32 (2.15) is unrecorded on CUDA.
  for (auto op : {torch::Op::Add, torch::Op::Div})
    EXPECT_EQ(torch::evaluate_cuda(op, {DType::float16}, {DType::complex64, OperandKind::Scalar}).result,
              DType::complex32);
  EXPECT_EQ(torch::evaluate(torch::Op::Div, {DType::float16}, {DType::complex64, OperandKind::Scalar}).error_type,
            "NotImplementedError");
  EXPECT_EQ(torch::evaluate_cuda(torch::Op::Mul, {DType::bfloat16}, {DType::complex64, OperandKind::Scalar}).error_type,
            "precision-lab");
  EXPECT_EQ(torch::evaluate_cuda(torch::Op::Add, {DType::tf32}, {DType::float32}).error_type, "AttributeError");
}

TEST(TorchCuda, AutocastRunsProductsInTheLowerType) {
  using torch::Op;
  EXPECT_EQ(torch::evaluate_autocast_cuda(DType::float16, Op::Linear, {DType::float32}, {DType::float32}).result,
            DType::float16);
  EXPECT_EQ(
      torch::evaluate_autocast_cuda(DType::bfloat16, Op::Conv2d, {DType::float32}, {DType::float16}, DType::float32)
          .result,
      DType::bfloat16);
  // float64 is never cast, so a float32 input against a float64 weight still raises.
  const Outcome f64 = torch::evaluate_autocast_cuda(DType::float16, Op::Linear, {DType::float32}, {DType::float64});
  EXPECT_EQ(f64.message, "expected mat1 and mat2 to have the same dtype, but got: c10::Half != double");
  // Elementwise ops are untouched.
  EXPECT_EQ(torch::evaluate_autocast_cuda(DType::float16, Op::Add, {DType::float32}, {DType::float32}).result,
            DType::float32);
  EXPECT_NE(find_engine("torch-autocast-cuda"), nullptr);
  // The frameworks' full names reach the same engines.
  EXPECT_EQ(find_engine("pytorch"), find_engine("torch"));
  EXPECT_EQ(find_engine("tensorflow"), find_engine("tf"));
  EXPECT_EQ(find_engine("tensorflow-numpy"), find_engine("tf-numpy"));
  EXPECT_EQ(find_engine("caffe"), nullptr);
  EXPECT_EQ(find_variant(*find_engine("torch"), "", "cuda")->id, "torch-cuda");
}

// Bug: a version matched as a prefix of the text, so "1.1" answered for torch 1.13.1 and "0.1" for
// jax 0.10.2. A version is a release or its leading parts.
TEST(TorchEngines, AVersionIsAReleaseOrItsLeadingParts) {
  auto variant = [](std::string_view id, std::string_view version) {
    const Engine* e = find_variant(*find_engine(id), version, "");
    return e ? std::string(e->id) : std::string("none");
  };
  EXPECT_EQ(variant("torch", "1.13"), "torch1.13");
  EXPECT_EQ(variant("torch", "1.13.1"), "torch1.13");
  EXPECT_EQ(variant("torch", "1"), "torch1.13");
  EXPECT_EQ(variant("torch", "2"), "torch");
  EXPECT_EQ(variant("torch", "1.1"), "none");
  EXPECT_EQ(variant("torch", "1.13.10"), "none");
  EXPECT_EQ(variant("jax", "0.1"), "none");
  EXPECT_EQ(variant("jax", "0.10"), "jax");
  EXPECT_EQ(variant("numpy", "1.2"), "none");
  EXPECT_EQ(variant("numpy", "1.26"), "numpy1");
}

// Asked on another device, an engine keeps the autocast the user's code switched on, with its
// dtype; where no engine has it there, none answers in its place. oneDNN is the CPU's own.
TEST(TorchEngines, AnotherDeviceKeepsAutocast) {
  auto variant = [](std::string_view id, std::string_view version, std::string_view device) {
    const Engine* e = find_variant(*find_engine(id), version, device);
    return e ? std::string(e->id) : std::string("none");
  };
  EXPECT_EQ(variant("torch-autocast-cpu", "", "cuda"), "torch-autocast-cuda-bf16");
  EXPECT_EQ(variant("torch-autocast-cuda-bf16", "", "cpu"), "torch-autocast-cpu");
  EXPECT_EQ(variant("torch-autocast-cuda", "", "cpu"), "none");
  EXPECT_EQ(variant("torch-autocast-cpu", "", "cpu"), "torch-autocast-cpu");
  EXPECT_EQ(variant("torch-autocast-cpu", "", "cuda, autocast float16"), "torch-autocast-cuda");
  EXPECT_EQ(variant("torch-autocast-cpu", "1.13", ""), "torch1.13-autocast-cpu");
  EXPECT_EQ(variant("torch-autocast-cpu-onednn", "", "cuda"), "torch-autocast-cuda-bf16");  // AVX-512 dropped
  EXPECT_EQ(variant("torch-autocast-cuda-bf16", "", "cpu"), "torch-autocast-cpu");
  EXPECT_EQ(variant("torch-onednn", "", "cuda"), "torch-cuda");
  EXPECT_EQ(variant("torch-cuda", "", "cpu"), "torch");
  EXPECT_EQ(variant("jax-x64", "", "cpu"), "jax-x64");
}

// An engine's description read in parts, the one reading find_variant, the heading and the CLI's
// messages share.
TEST(EngineDescription, PlacementConfigurationAutocast) {
  EXPECT_EQ(placement_of("cpu"), "cpu");
  EXPECT_EQ(configuration_of("cpu"), "");
  EXPECT_EQ(autocast_of("cpu"), "");
  EXPECT_EQ(placement_of("cpu with AVX-512, autocast bfloat16"), "cpu");
  EXPECT_EQ(configuration_of("cpu with AVX-512, autocast bfloat16"), " with AVX-512, autocast bfloat16");
  EXPECT_EQ(autocast_of("cpu with AVX-512, autocast bfloat16"), "autocast bfloat16");
  EXPECT_EQ(placement_of("cuda, autocast float16"), "cuda");
  EXPECT_EQ(autocast_of("cuda, autocast float16"), "autocast float16");
  EXPECT_EQ(autocast_of("cpu, oneDNN off"), "");
  // Bug: torch-onednn was said to model any "cpu with AVX-512"; it was recorded with oneDNN held
  // to AVX512_CORE, and on a CPU with AVX512-FP16 PyTorch 2.15 runs float16 convolutions in
  // oneDNN as well (which is why gen_torch_conv_shapes.py holds oneDNN to AVX512_CORE).
  EXPECT_EQ(find_engine("torch-onednn")->device, "cpu with AVX-512 but no AVX512-FP16, oneDNN bfloat16");
  EXPECT_EQ(placement_of(find_engine("torch-onednn")->device), "cpu");
  // Placed operands name their devices; a configuration stays in the heading.
  EXPECT_EQ(engine_heading(*find_engine("torch-cuda"), true), "torch 2.15.0");
  EXPECT_EQ(engine_heading(*find_engine("torch-cuda"), false), "torch 2.15.0 (cuda)");
  EXPECT_EQ(engine_heading(*find_engine("torch-autocast-cuda"), true), "torch 2.15.0 (cuda, autocast float16)");
}

}  // namespace
}  // namespace pl::promote

namespace pl::promote {
namespace {

// A recorded 2.11 outcome as 2.15 gives it, for the one change between the releases that the
// modelled cells show: subtracting a bool raised RuntimeError up to 2.11 (1.13 and 2.11 recorded)
// and NotImplementedError in 2.15 (recorded on the CPU, where the check is the same code).
std::string as_in_2_15(const std::string& recorded_2_11) {
  const std::string old_sub = "RuntimeError: Subtraction, the `-` operator, with a bool tensor";
  if (recorded_2_11.rfind(old_sub, 0) == 0) return "NotImplementedError" + recorded_2_11.substr(12);
  return recorded_2_11;
}

// A golden file of PyTorch on CUDA, read once: `file` is under the assets' promotion folder
// (the recorded engine reads it too) or, for a recording only the tests use, under the tests'.
const testing::GoldenFile& cuda_golden(const std::string& file) {
  static std::map<std::string, testing::GoldenFile> files;
  return files
      .try_emplace(
          file, file, [](DType t) { return std::string(torch::python_name(t)); },
          [](const std::string& n) { return torch::from_python_name(n); })
      .first->second;
}

// PyTorch 2.11.0 recorded on an H100 (gen_torch.py --device cuda), read once.
const testing::GoldenFile& recorded_cuda_golden() {
  // Appended, not `std::string(...) + "..."`: GCC 12 warns falsely on that (bug 105329).
  std::string path = PL_PROMOTION_ASSETS;
  path += "/torch2.11_cuda.json";
  return cuda_golden(path);
}

struct ModelCheck {
  size_t modelled = 0, refused = 0, differ = 0, unrecorded = 0;
};

// A CUDA model (PyTorch 2.15) against a recording: every cell whose tensors are all of the
// modelled dtypes must match, text included, up to as_in_2_15; every other cell must say it is
// not modelled; a null cell (a partial recording's) is not recorded. Reports the first 12 cells
// that differ.
ModelCheck check_model_against(const testing::GoldenFile& g, const TorchEvaluate& model) {
  ModelCheck c;
  for (const auto& table : g.json()["tables"].items()) {
    // (Named, not a structured binding: clang 14 cannot capture one in the lambda below.)
    const std::string& key = table.key();
    const auto& cells = table.value();
    if (key == "promote_types") continue;
    const testing::TableKey tk = testing::parse_table_key(key);
    const auto op = torch::parse_op(tk.op);
    const auto ka = parse_operand_kind(tk.kinds.at(0)), kb = parse_operand_kind(tk.kinds.at(1));
    EXPECT_TRUE(op && ka && kb) << key;
    if (!op || !ka || !kb) continue;
    const bool with_bias = tk.kinds.size() == 3;
    std::vector<size_t> at;
    auto walk = [&](auto&& self, const nlohmann::json& node) -> void {
      if (node.is_array()) {
        for (size_t i = 0; i < node.size(); ++i) {
          at.push_back(i);
          self(self, node[i]);
          at.pop_back();
        }
        return;
      }
      if (node.is_null()) {
        ++c.unrecorded;
        return;
      }
      const auto& ts = g.dtypes();
      const Operand a{ts[at[0]], *ka}, b{ts[at[1]], *kb};
      const std::optional<DType> bias = with_bias ? std::optional<DType>(ts[at[2]]) : std::nullopt;
      const Outcome got = model(*op, a, b, bias);
      if (got.error_type == "precision-lab") {
        ++c.refused;
        return;
      }
      ++c.modelled;
      const std::string want = as_in_2_15(g.text_of(g.json()["outcomes"].at(node.get<size_t>())));
      if (g.text_of(got) != want && ++c.differ <= 12)
        ADD_FAILURE() << key << " " << name(a.dtype) << ", " << name(b.dtype)
                      << (bias ? ", " + std::string(name(*bias)) : "") << "\n  want: " << want
                      << "\n  got:  " << g.text_of(got);
    };
    walk(walk, cells);
  }
  EXPECT_EQ(c.differ, 0u) << c.differ << " of " << c.modelled << " modelled cells differ";
  return c;
}

TEST(TorchCuda, TheModelMatchesTheRecordingFromAnH100) {
  const testing::GoldenFile& g = recorded_cuda_golden();
  ASSERT_EQ(g.json()["device"], "cuda");
  const ModelCheck c = check_model_against(g, [](torch::Op op, Operand a, Operand b, std::optional<DType> bias) {
    return torch::evaluate_cuda(op, a, b, bias);
  });
  EXPECT_EQ(c.modelled, 1572u);  // the count docs/features.md quotes: all of them match
  RecordProperty("modelled", std::to_string(c.modelled));
  RecordProperty("refused", std::to_string(c.refused));
}

// The autocast models against PyTorch 2.11.0 under torch.autocast("cuda", dtype) on an H100,
// as far as that recording went (docs/gpu-results/h100-2026-11-26b/README.md):
// every elementwise table, the seven two-operand ops and most of addmm with a bias; linear,
// conv1d and conv2d with a bias are not recorded yet. Cells that ended in a CUDA error are not
// kept (null): the recorder of then let a kernel that asserted behind a Python error poison the
// next cell of its process, so those could be the previous cell's (gen_torch.py: cuda_usable).
class TorchAutocastCuda : public ::testing::TestWithParam<const char*> {};

TEST_P(TorchAutocastCuda, TheModelMatchesThePartialRecordingFromAnH100) {
  const std::string lower = GetParam();
  const testing::GoldenFile& g = cuda_golden(std::string(PL_PROMOTION_DIR) + "/torch2.11_autocast_cuda" +
                                             (lower == "bfloat16" ? "_bf16" : "") + "_partial.json");
  ASSERT_EQ(g.json()["autocast"], "cuda");
  ASSERT_EQ(g.json()["autocast_dtype"], lower);
  const DType dtype = lower == "bfloat16" ? DType::bfloat16 : DType::float16;
  const ModelCheck c = check_model_against(g, [&](torch::Op op, Operand a, Operand b, std::optional<DType> bias) {
    return torch::evaluate_autocast_cuda(dtype, op, a, b, bias);
  });
  EXPECT_EQ(c.modelled, lower == "bfloat16" ? 1356u : 1361u);  // the counts docs/features.md quotes
  RecordProperty("modelled", std::to_string(c.modelled));
  RecordProperty("refused", std::to_string(c.refused));
  RecordProperty("unrecorded", std::to_string(c.unrecorded));
}
INSTANTIATE_TEST_SUITE_P(Lower, TorchAutocastCuda, ::testing::Values("float16", "bfloat16"));

}  // namespace
}  // namespace pl::promote

#include "core/promote/torch_cuda_recorded.h"

namespace pl::promote {
namespace {

// The recorded engine answers every cell of the recording through the engine interface (the
// op, operand kinds, dtypes and bias of a Query mapped to the right table and cell).
TEST(TorchCudaRecorded, EveryRecordedCellThroughTheEngine) {
  const Engine* e = find_engine("torch2.11-cuda");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->version, "2.11.0");
  // The engine's version is a constant (the registry is built without parsing the recording).
  EXPECT_EQ(recorded_cuda_golden().json()["version"], std::string(torch::kRecordedCudaVersion));
  EXPECT_EQ(find_variant(*find_engine("torch"), "2.11", "cuda"), e);
  EXPECT_EQ(find_variant(*find_engine("torch"), "", "cuda")->id, "torch-cuda");
  const size_t cells = check_op_tables(recorded_cuda_golden(), [&](torch::Op op, Operand a, Operand b, auto bias) {
    return e->evaluate(Query{std::string(torch::op_name(op)), a, b, bias});
  });
  EXPECT_EQ(cells, 4u * 7 * 22 * 22 + 7u * 22 * 22 + 4u * 22 * 22 * 22);
}

TEST(TorchCudaRecorded, SaysWhatItDoesNotHold) {
  using torch::Op;
  // A kernel's device-side assert is a recorded outcome, with what it does to the process.
  const Outcome fp4 =
      torch::evaluate_recorded_cuda(Op::Add, {DType::float16}, {DType::float4_e2m1fn, OperandKind::ZeroDim});
  EXPECT_EQ(fp4.error_type, "AcceleratorError");
  EXPECT_NE(fp4.message.find("device-side assert triggered"), std::string::npos);
  EXPECT_NE(fp4.rule.find("every later CUDA call"), std::string::npos);
  // Not recorded: a zero-dim operand of a matrix product; a dtype 2.11 lacks.
  EXPECT_EQ(torch::evaluate_recorded_cuda(Op::Mm, {DType::float32, OperandKind::ZeroDim}, {DType::float32}).error_type,
            "precision-lab");
  const Outcome bc = torch::evaluate_recorded_cuda(Op::Add, {DType::bcomplex32}, {DType::float32});
  EXPECT_EQ(bc.message, "module 'torch' has no attribute 'bcomplex32'");
  EXPECT_FALSE(torch::recorded_cuda_has_dtype(DType::bcomplex32));
  // Where the 2.15 model has no answer, the recording has 2.11's: an int8 tensor and a uint8.
  EXPECT_EQ(torch::evaluate_cuda(Op::Add, {DType::int8}, {DType::uint8}).error_type, "precision-lab");
  EXPECT_EQ(torch::evaluate_recorded_cuda(Op::Add, {DType::int8}, {DType::uint8}).result, DType::int16);
  EXPECT_NE(torch::evaluate_recorded_cuda(Op::Add, {DType::int8}, {DType::uint8}).rule.find("H100"), std::string::npos);
}

}  // namespace
}  // namespace pl::promote

#include "core/dtype/format_lookup.h"

namespace pl::promote {
namespace {

// F.linear with a bias of another dtype, by the input's rank and layout, recorded from the real
// library (gen_torch_linear_bias.py). The engine answers for the 2-D input the tables were
// recorded with; its rule says which other inputs take addmm's path and what the rest do, and
// every recorded call must be what that sentence says.
void check_linear_bias_file(const std::string& file, const char* engine_id, bool release_1_13) {
  std::ifstream in(std::string(PL_PROMOTION_DIR) + "/" + file);
  ASSERT_TRUE(in) << file;
  const auto j = nlohmann::json::parse(in);
  const Engine* e = find_engine(engine_id);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(j["versions"]["torch"].get<std::string>().substr(0, 4), std::string(e->version).substr(0, 4));
  size_t checked = 0;
  for (const auto& call : j["calls"]) {
    const auto bias = parse_dtype(call["bias"].get<std::string>());
    ASSERT_TRUE(bias) << call.dump();
    const Outcome o = e->evaluate(Query{"linear", {DType::float32}, {DType::float32}, *bias});
    ASSERT_FALSE(o.ok()) << call.dump();
    const size_t dims = call["shape"].size();
    const bool contiguous = call["contiguous"].get<bool>();
    // The rule's words: "A contiguous 3-D input does the same" (1.13), "Any contiguous input does
    // the same" (2.15); the rest "keeps the product's dtype (a complex bias then raises)".
    EXPECT_NE(o.rule.find(release_1_13 ? "A contiguous 3-D input does the same; any other of 3 or more dimensions"
                                       : "Any contiguous input does the same; a non-contiguous one of 3 or more"),
              std::string::npos)
        << o.rule;
    EXPECT_NE(o.rule.find("in-place add, which keeps the product's dtype (a complex bias then raises)"),
              std::string::npos)
        << o.rule;
    const bool addmm_path = dims == 2 || (contiguous && (!release_1_13 || dims == 3));
    if (addmm_path) {
      EXPECT_EQ(call.value("message", ""), o.message) << call.dump();
      EXPECT_EQ(call.value("error", ""), o.error_type) << call.dump();
    } else if (info(*bias).kind == DTypeKind::Complex) {
      EXPECT_EQ(call.value("message", ""), "result type ComplexFloat can't be cast to the desired output type Float")
          << call.dump();
    } else {
      EXPECT_EQ(call.value("result", ""), "float32") << call.dump();
    }
    ++checked;
  }
  EXPECT_EQ(checked, 30u);
}

TEST(TorchLinearBias, TheRuleSaysWhichInputsTakeAddmmAsRecordedIn215) {
  check_linear_bias_file("torch_linear_bias.json", "torch", false);
}

TEST(TorchLinearBias, TheRuleSaysWhichInputsTakeAddmmAsRecordedIn113) {
  check_linear_bias_file("torch1.13_linear_bias.json", "torch1.13", true);
}

// addmm's own rule stays its own: it has no layout to speak of.
TEST(TorchLinearBias, AddmmSaysItDoesNotPromoteTheBias) {
  const Outcome o = find_engine("torch")->evaluate(Query{"addmm", {DType::float32}, {DType::float32}, DType::float16});
  EXPECT_EQ(o.rule, "The bias must have the operands' dtype too: addmm does not promote it.");
}

}  // namespace
}  // namespace pl::promote
