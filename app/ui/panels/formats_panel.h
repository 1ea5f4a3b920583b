// The Formats panel: every float format, what a typed value becomes in each
// (bits coloured by field, decoded value, error), each format's limits, and what the value
// becomes in each integer dtype (a C cast and a saturating one).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/ui/panels/panel.h"
#include "app/ui/widgets/split_view.h"
#include "app/ui/widgets/table_rows.h"
#include "core/dtype/describe.h"

namespace pl::ui {

class FormatsPanel final : public Panel {
 public:
  explicit FormatsPanel(std::string initial_value);
  const char* name() const override { return "Formats"; }
  void draw_content() override;
  // Shows `value` in every format, with `row`'s format marked (a scenario's look-at link).
  // Types `value`, marks `row` and casts along `path` ("direct", the default, or "via-float32").
  void show(const std::string& value, std::optional<DType> row, const std::string& path = {});
  const char* value() const { return value_text_; }
  std::optional<DType> marked() const { return marked_; }
  // Compact: the tables without the controls above them (a scenario's live panel, where the link
  // chose the value and path); the integer table's explanation moves to its header's tooltip.
  void set_compact(bool compact) { compact_ = compact; }
  CastPath path() const { return static_cast<CastPath>(path_); }
  const std::string& value_error() const { return parse_error_; }  // why the value does not read; empty if it does

 private:
  void draw_controls();
  void draw_value_table();
  void draw_properties_table();
  void draw_integer_table();
  void mark_row(DType t, size_t row = 0);  // the row background of a marked row, scrolled into view once
  bool integer_marked() const;  // a link marks an integer dtype: its table comes first
  void recompute();
  bool add_named_custom_formats();  // true when rows were added

  char value_text_[128] = {};
  char custom_text_[64] = "e5m7";
  int rounding_ = 0, overflow_ = 0, path_ = 0;
  bool daz_ = false, ftz_ = false;
  uint64_t seed_ = 0;  // all 64 bits, as the CLI's cast --seed
  std::string parse_error_;
  double value_ = 0;
  std::vector<FormatRef> formats_;
  SplitView split_{0.55f};   // the value in each format above, the formats' properties below
  size_t customs_seen_ = 0;  // custom_dtypes() already looked at
  std::vector<CastReport> results_;
  std::optional<DType> marked_;  // the row a link points at
  bool scroll_to_marked_ = false;  // the marked row (or the integer table) not yet brought into view
  TableRows value_rows_;            // the value table's rows
  bool compact_ = false;
};

}  // namespace pl::ui
