// The Promotion panel: a dtype x dtype grid of what a framework does with each
// pair (result or error, coloured by outcome), op and operand-kind selectors,
// a compare mode that highlights every cell where two settings disagree, the
// full rule and exact message on hover, and the chosen pair with its fixes.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/ui/panels/panel.h"
#include "app/ui/shell/run_log.h"
#include "app/ui/widgets/flow_layout.h"
#include "app/ui/widgets/split_view.h"
#include "app/ui/widgets/table_rows.h"
#include "core/promote/engine.h"
#include "core/util/expected.h"

namespace pl::ui {

class PromotionPanel final : public Panel {
 public:
  explicit PromotionPanel(RunLog& log);
  const char* name() const override { return "Promotion"; }
  void draw_content() override;
  // A state to show: the command line's start state, or a scenario's look-at link.
  struct StartState {
    std::string framework;  // engine id
    std::string op;
    bool compare = false;
    std::string compare_with;  // engine id for the compared grid; empty: same engine
    std::string b_kind;        // tensor | zerodim | scalar
    std::string b_value;
    std::string select;              // "A,B": the selected pair
    std::string a_shape, b_shape;    // a convolution's shapes, "N,C,H,W" and "O,I,kH,kW"
    std::string a_device, b_device;  // where a and b live: "cpu" or "cuda" (empty: the engine's own)
    std::string bias = {};           // the bias dtype, for ops that take one (empty: none)
    // The float8/6/4 rows and columns hidden (never when the selected pair is one of them);
    // unset: hidden while every pair with one raises.
    std::optional<bool> hide_narrow_floats = {};
  };
  Status configure(const StartState& start);
  // What the grid shows: its engine's id and op (for the tests of links that set them).
  std::string_view framework() const { return engine(main_).id; }
  std::string_view op() const { return engine(main_).ops[main_.op]; }
  bool comparing() const { return compare_; }
  // The settings in a line, as the compact panel shows them above its grid:
  // "torch 2.15.0 (cuda, autocast float16), linear: a tensor, b tensor".
  std::string caption() const;
  // What the main grid answers for the selected pair (none when no pair is selected).
  std::optional<promote::Outcome> selected_outcome() const;
  // The selected pair handed to the Experiment panel ("run this pair" under the grid): the
  // input and weight dtypes, the engine id and the op asked.
  struct PairRun {
    DType input, weight;
    std::string engine, op;
  };
  void on_run_pair(std::function<void(const PairRun&)> f) { run_pair_ = std::move(f); }
  // Compact: the settings as a line of text instead of their controls (a scenario's live panel,
  // where the link chose them and the grid needs the room).
  void set_compact(bool compact) { compact_ = compact; }
  // The grid as last drawn, for the overview beside it while no pair is chosen: how many of its
  // cells fall in each outcome class (promote::OutcomeClass order; cells the question does not
  // apply to are in none), and the pairs whose result cannot hold every value of an operand,
  // row by row, each with its label ("i64, f16 -> f16").
  struct NarrowedPair {
    int a = 0, b = 0;  // dtype indices of the cell
    std::string label;
  };
  struct Overview {
    std::array<int, 5> count{};
    std::vector<NarrowedPair> narrowed;
  };
  const Overview& overview() const { return overview_; }

 private:
  // One side of the grid: which framework, op and operand kinds are asked.
  struct Setting {
    int engine = 0;
    int op = 0;
    int a_kind = 0, b_kind = 0;
    int bias = 0;           // 0: no bias; k > 0: dtypes_[k - 1]
    char b_value[32] = "";  // a zero-dim or scalar b's value, for engines that read values
    // A convolution's shapes, for engines whose answer depends on them (empty: the default).
    char a_shape[48] = "", b_shape[48] = "";
    int groups = 1, threads = 2;
    // Where a and b live, for engines that place operands: -1 the engine's own device, else a
    // promote::Device.
    int a_device = -1, b_device = -1;
  };
  struct Grid {
    std::vector<promote::Outcome> cells;  // row-major over dtypes_ x dtypes_
  };

  void draw_setting(const char* id, Setting& s);
  void draw_conv_shape(Setting& s);
  void draw_devices(Setting& s);
  void draw_grid();
  void draw_selection();
  void draw_overview();
  void draw_matmul_precision(const promote::Engine& e, const promote::Query& q, const promote::Outcome& o);
  int matmul_precision_ = 0;  // torch.set_float32_matmul_precision: highest, high, medium
  void navigate();
  void recompute();
  promote::Query query(const Setting& s, DType a, DType b) const;
  // The setting's convolution shapes with the defaults filled in, or why they cannot be used;
  // none when its op has no shapes.
  Expected<std::optional<promote::ConvShape>> conv_shape(const Setting& s) const;
  const promote::Engine& engine(const Setting& s) const;
  bool visible(DType t) const;

  std::vector<DType> dtypes_;
  Setting main_, other_;
  bool compare_ = false;
  // The float8/6/4 family; unset: hidden while every pair with one of them raises (a matmul's
  // 23 x 23 wall of "error" teaches nothing), shown when one does not.
  std::optional<bool> hide_narrow_floats_;
  bool narrow_all_raise_ = false;  // in the grids as computed
  char filter_[32] = "";
  Grid grid_, other_grid_;
  std::string computed_for_;  // settings the grids were computed for
  int selected_a_ = -1, selected_b_ = -1;
  bool scroll_to_selected_ = false;      // a configured pair's column not yet scrolled into view
  bool scroll_to_selected_row_ = false;  // ... and its row
  TableRows grid_rows_;                  // the grid's rows
  bool compact_ = false;
  std::string engine_summary(const Setting& s) const;  // "torch 2.15.0 (cpu)"
  std::string call_summary(const Setting& s) const;    // "mul: a tensor, b Python scalar"
  RunLog& log_;
  std::string logged_;  // the selection last written to the log
  std::function<void(const PairRun&)> run_pair_;
  SplitView split_{0.75f};  // the grid above, the selection and its fixes below
  // The grid's width at full size, with room for a scrollbar, as last drawn (0: not yet drawn);
  // at most kBesideShare of the panel's width, the selection and its fixes sit beside it.
  float natural_width_ = 0;
  static constexpr float kBesideShare = 0.55f;
  bool beside_ = false;  // this frame
  Overview overview_;    // of the grid as last drawn
};

}  // namespace pl::ui
