// A scenario's "Look at" links: each opens its panel in the state the text means -- the
// Promotion grid on the engine and op, the Formats panel with the value typed and one row
// marked -- and every link of the shipped scenarios opens.
#include <gtest/gtest.h>

#include "app/ui/panels/promotion_columns.h"
#include "app/ui/shell/panel_links.h"
#include "app/ui/widgets/format_limits_table.h"
#include "core/scenario/library.h"

namespace pl::ui {
namespace {

using Link = scenario::Scenario::PanelLink;

// The panels a link can open, as the window makes them.
class PanelLinks : public ::testing::Test {
 protected:
  RunLog log{false};
  PromotionPanel promotion{log};
  FormatsPanel formats{"0.1"};
  CheckpointPanel checkpoint{log};
  ExperimentPanel experiment{log};
  LinkedPanels panels{promotion, formats, checkpoint, experiment};

  // A link to the Promotion grid on one engine and op.
  static Link promotion_link(const char* label, const char* framework, const char* op) {
    Link link;
    link.label = label;
    link.panel = "promotion";
    link.framework = framework;
    link.op = op;
    return link;
  }
};

// Bug: scenario 17's autocast grid was captioned "torch 2.15.0, linear: a tensor, b tensor", so
// float32 x float32 -> bfloat16 read as plain PyTorch's answer. The caption names the engine's
// device and configuration.
TEST_F(PanelLinks, AnAutocastGridSaysItIsAutocast) {
  Link link = promotion_link("autocast", "torch-autocast-cuda", "linear");
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_NE(promotion.caption().find("(cuda, autocast float16), linear"), std::string::npos) << promotion.caption();
  link.framework = "torch";
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_NE(promotion.caption().find("(cpu), linear"), std::string::npos) << promotion.caption();
  // Operands placed on two devices say where (scenario 30's caption hid it).
  link.a_device = "cpu", link.b_device = "cuda";
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_NE(promotion.caption().find("a tensor on cpu, b tensor on cuda"), std::string::npos) << promotion.caption();
  EXPECT_EQ(promotion.caption().find("(cpu)"), std::string::npos) << promotion.caption();  // no engine device beside
}

// Bug: the caption named an operand kind by its command-line token, "b zerodim", beside the
// picker's "zero-dim tensor" (scenario 25). It takes the picker's names, NumPy's arrays as arrays
// (it said "tensor" under NumPy 2).
TEST_F(PanelLinks, TheCaptionNamesOperandKindsAsThePickersDo) {
  Link link = promotion_link("zero-dim", "numpy", "multiply");
  link.b_kind = "zerodim";
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_NE(promotion.caption().find("a array, b zero-dim array"), std::string::npos) << promotion.caption();
  link.b_kind = "scalar";
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_NE(promotion.caption().find("b Python scalar"), std::string::npos) << promotion.caption();
  link.framework = "torch", link.op = "mul";
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_NE(promotion.caption().find("a tensor, b Python scalar"), std::string::npos) << promotion.caption();
}

// Bug: a compared grid's caption named the same op and operands twice ("numpy 2.4.6 (cpu),
// multiply: a tensor, b zero-dim tensor; a framed cell: numpy 1.26.4 (cpu), multiply: a tensor, b
// zero-dim tensor answers otherwise"), two lines of presentation mode above scenario 25's grid;
// and scenario 04's twice where the frameworks name the same operands otherwise (PyTorch's
// "a tensor", NumPy's "a array").
TEST_F(PanelLinks, AComparedCaptionNamesTheCallOnceWhenBothShareIt) {
  Link link = promotion_link("zero-dim", "numpy", "multiply");
  link.b_kind = "zerodim";
  link.compare_with = "numpy1";
  ASSERT_TRUE(open_panel_link(link, panels));
  const std::string caption = promotion.caption();
  const std::string call = "multiply: a array, b zero-dim array";  // (NumPy's arrays)
  ASSERT_NE(caption.find(call), std::string::npos) << caption;
  EXPECT_EQ(caption.find(call, caption.find(call) + 1), std::string::npos) << caption;
  EXPECT_NE(caption.find("; framed where numpy 1."), std::string::npos) << caption;
  EXPECT_NE(caption.find("answers otherwise"), std::string::npos) << caption;
}

TEST_F(PanelLinks, AComparedCaptionNamesTheCallOnceAcrossFrameworks) {
  Link link = promotion_link("1000", "torch", "add");
  link.b_kind = "scalar";
  link.b_value = "1000";
  link.compare_with = "numpy";
  ASSERT_TRUE(open_panel_link(link, panels));
  const std::string caption = promotion.caption();
  EXPECT_EQ(caption.find("a array"), std::string::npos) << caption;
  EXPECT_NE(caption.find("add: a tensor, b Python scalar 1000; framed where numpy 2."), std::string::npos) << caption;
  EXPECT_NE(caption.find(") answers otherwise"), std::string::npos) << caption;
}

TEST_F(PanelLinks, APromotionLinkSetsTheGridsEngineAndOp) {
  Link link = promotion_link("matmul", "numpy", "matmul");
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_EQ(promotion.framework(), "numpy");
  EXPECT_EQ(promotion.op(), "matmul");
  EXPECT_FALSE(promotion.comparing());
  link.framework = "torch", link.op = "add", link.compare_with = "numpy", link.b_kind = "scalar";
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_EQ(promotion.framework(), "torch");
  EXPECT_TRUE(promotion.comparing());
}

// Scenario 04's headline pair: uint8 + the Python int 1000 stays uint8 in PyTorch (it wraps) and
// raises in NumPy 2. Its link could not set b's value, and the grid answered for b = 2.
TEST_F(PanelLinks, APromotionLinkSetsAScalarsValue) {
  Link link = promotion_link("1000", "torch", "add");
  link.b_kind = "scalar", link.b_value = "1000", link.select = "uint8,int64";
  ASSERT_TRUE(open_panel_link(link, panels));
  ASSERT_TRUE(promotion.selected_outcome());
  EXPECT_EQ(promotion.selected_outcome()->result, DType::uint8);
  EXPECT_NE(promotion.caption().find("b Python scalar 1000"), std::string::npos) << promotion.caption();
  link.framework = "numpy";
  ASSERT_TRUE(open_panel_link(link, panels));
  ASSERT_TRUE(promotion.selected_outcome());
  EXPECT_FALSE(promotion.selected_outcome()->result);
  EXPECT_NE(promotion.selected_outcome()->message.find("Python integer 1000 out of bounds for uint8"), std::string::npos)
      << promotion.selected_outcome()->message;
}

// A link can place the operands: a CPU batch into a model on the GPU raises the device error, and
// a zero-dim CPU tensor joins CUDA tensors.
TEST_F(PanelLinks, APromotionLinkPlacesTheOperands) {
  Link link = promotion_link("CPU batch, GPU model", "torch", "linear");
  link.select = "float32,float32";
  ASSERT_TRUE(open_panel_link(link, panels));
  ASSERT_TRUE(promotion.selected_outcome());
  EXPECT_EQ(promotion.selected_outcome()->result, DType::float32);  // one device
  link.a_device = "cpu", link.b_device = "cuda";
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_NE(promotion.selected_outcome()->message.find("got mat2 is on cuda:0"), std::string::npos);  // mm's
  link.bias = "float32";  // nn.Linear: addmm(bias, x, w.t()) meets the CPU x as mat1
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_NE(promotion.selected_outcome()->message.find("got mat1 is on cpu"), std::string::npos);
  link.bias.clear();
  link.op = "mul", link.b_kind = "zerodim", link.a_device = "cuda", link.b_device = "cpu";
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_EQ(promotion.selected_outcome()->result, DType::float32);
  link.framework = "numpy";  // NumPy arrays live on no device
  EXPECT_FALSE(open_panel_link(link, panels));
}

// A link the panel refuses part-way (here at its selected pair) leaves the grid as it was.
TEST_F(PanelLinks, ARefusedLinkLeavesTheGridAsItWas) {
  Link link = promotion_link("bad pair", "numpy", "matmul");
  link.select = "int32";  // no comma
  ASSERT_FALSE(open_panel_link(link, panels));
  EXPECT_EQ(promotion.framework(), "torch");
  EXPECT_EQ(promotion.op(), "add");
}

// Bug: a Python scalar b showed a column per dtype, of which the four floats and the eight
// integers answered alike (scenario 04's grid ran past the pane). A Python scalar has a Python
// type: alike neighbours of one type are one column, headed by it.
TEST(PromotionColumns, AScalarBsColumnsAreItsPythonTypes) {
  const promote::Engine& e = promote::engines()[0];
  const std::vector<DType> dtypes = {DType::float64, DType::float32, DType::bool_, DType::int8, DType::int64};
  const size_t n = dtypes.size();
  std::vector<promote::Outcome> cells(n * n, promote::returns(DType::float32, "same"));
  for (size_t i = 0; i < n; ++i) cells[i * n + 2] = promote::returns(DType::bool_, "bool");  // the bool column
  cells[0 * n + 4] = promote::returns(DType::int64, "another");  // int64 answers otherwise in one row
  const std::vector<int> all = {0, 1, 2, 3, 4};
  const auto merged = grid_columns(dtypes, cells, {}, all, all, /*scalar_b=*/true, e);
  ASSERT_EQ(merged.size(), 4u);
  EXPECT_EQ(merged[0].header, "float");
  EXPECT_EQ(merged[0].members, (std::vector<int>{0, 1}));
  EXPECT_NE(merged[0].tip.find("f64 and f32 columns answer alike"), std::string::npos) << merged[0].tip;
  EXPECT_EQ(merged[1].header, "bool");
  EXPECT_EQ(merged[2].header, "int i8");  // two int columns: each says which
  EXPECT_EQ(merged[3].header, "int i64");
  // A compared grid that tells two columns apart keeps them apart.
  std::vector<promote::Outcome> other = cells;
  other[1 * n + 1] = promote::raises("TypeError", "no", "no");
  EXPECT_EQ(grid_columns(dtypes, cells, other, all, all, true, e).size(), 5u);
  // ... but a column the compared engine does not answer (a dtype it lacks) says nothing against it.
  other = cells;
  other[1 * n + 1] = promote::raises("AttributeError", "module 'numpy' has no attribute", "lacks it");
  EXPECT_EQ(grid_columns(dtypes, cells, other, all, all, true, e).size(), 4u);
  // A tensor b keeps a column per dtype.
  EXPECT_EQ(grid_columns(dtypes, cells, {}, all, all, false, e).size(), 5u);
}

// Bug: float8_e8m0fnu's smallest subnormal read 2^-127, its smallest normal. The two are the
// same number, so each limit is told by its column, not by its value (by value, the smallest
// normal would read "none" too).
TEST(FormatLimits, AFormatWithoutSubnormalsHasNoneAndStillItsSmallestNormal) {
  const FloatFormat e8m0 = info(DType::float8_e8m0fnu).format, f16 = info(DType::float16).format;
  EXPECT_EQ(power_limit_text(e8m0, PowerLimit::SmallestNormal), "2^-127");
  EXPECT_EQ(power_limit_text(e8m0, PowerLimit::SmallestSubnormal), "none");
  EXPECT_EQ(power_limit_text(f16, PowerLimit::SmallestNormal), "2^-14");
  EXPECT_EQ(power_limit_text(f16, PowerLimit::SmallestSubnormal), "2^-24");
  EXPECT_EQ(power_limit_text(f16, PowerLimit::Epsilon), "2^-10");
  EXPECT_EQ(power_limit_text(f16, PowerLimit::UnitRoundoff), "2^-11");
}

TEST_F(PanelLinks, AFormatsLinkTypesTheValueAndMarksTheRow) {
  Link link;
  link.label = "448";
  link.panel = "formats";
  link.value = "448";
  link.row = DType::float8_e4m3fn;
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_STREQ(formats.value(), "448");
  EXPECT_EQ(formats.marked(), DType::float8_e4m3fn);
  EXPECT_EQ(formats.path(), CastPath::Direct);
  // Scenario 06's "50/49 in every format": the panel read only plain numbers and showed an error.
  link.value = "50/49";
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_EQ(formats.value_error(), "");
  // Scenario 19's: the same value cast through float32 first, as PyTorch casts to float8.
  link.value = "0x1.1000000001p+0", link.path = "via-float32";
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_EQ(formats.path(), CastPath::ViaFloat32);
  link.path = "direct";
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_EQ(formats.path(), CastPath::Direct);
  // A link that names no path casts directly, whatever path the link before chose.
  link.path = "via-float32";
  ASSERT_TRUE(open_panel_link(link, panels));
  link.path.clear();
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_EQ(formats.path(), CastPath::Direct);
}

TEST_F(PanelLinks, ACheckpointLinkScansTheCheckpoint) {
  Link link;
  link.label = "the checkpoint";
  link.panel = "checkpoint";
  link.checkpoint = "/nowhere/model.safetensors";
  ASSERT_TRUE(open_panel_link(link, panels));
  EXPECT_EQ(checkpoint.path_field(), link.checkpoint);  // (the scan it starts fails on its worker, shown by the panel)
}

TEST_F(PanelLinks, AnExperimentLinkOpensTheEvidencesSetup) {
  Link link;
  link.label = "the MX run";
  link.panel = "experiment";
  link.setup = {{"experiment", "roundtrip"}, {"rows", 8}, {"cols", 64}, {"dtype", "float8_e4m3fn"}, {"scaling", "mx"}};
  link.evidence.figure = "scale-map";
  ASSERT_TRUE(open_panel_link(link, panels));  // read as the panel's cast setup
  link.setup = {{"experiment", "scan"}};       // a kind the panel does not run: refused, saying so
  EXPECT_FALSE(open_panel_link(link, panels));
}

TEST_F(PanelLinks, EveryShippedLinkOpens) {
  const scenario::Library library = scenario::load_library({PL_SCENARIO_DIR});
  for (const auto& e : library.errors) ADD_FAILURE() << e;
  size_t links = 0;
  for (const auto& s : library.scenarios)
    for (const Link& link : s.look_at_panels) {
      EXPECT_TRUE(open_panel_link(link, panels)) << s.name << ": " << link.label;
      ++links;
    }
  EXPECT_GE(links, 8u);  // the Promotion and Formats scenarios point at their panels
}

}  // namespace
}  // namespace pl::ui
