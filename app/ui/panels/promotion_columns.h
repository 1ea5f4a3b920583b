// The Promotion grid's columns: one per dtype shown, or, for a Python scalar b (which has a
// Python type, not a dtype), neighbouring columns of one Python type that answer alike merged
// into one headed by the type. Apart from the panel so that it is tested without a window.
#pragma once

#include <string>
#include <vector>

#include "core/dtype/dtype.h"
#include "core/promote/engine.h"

namespace pl::ui {

// Two cells answer alike: the same dtype, or the same exception and text.
bool same_outcome(const promote::Outcome& x, const promote::Outcome& y);
// A cell the question does not apply to (a value that is no value of the column's Python type, a
// dtype the framework lacks, as NumPy lacks complex32) is not an error the framework raises.
bool not_applicable(const promote::Outcome& o);

struct GridColumn {
  int dtype = 0;             // the index in the grid's dtypes of the column's cells
  std::vector<int> members;  // every dtype index the column stands for (itself first)
  std::string header;        // "f32"; for a scalar b "float", or "complex c32" beside another complex
  std::string tip;           // the header's hover text
};

// `cells` and `other` (the compared grid's, empty when not comparing) are row-major over
// `dtypes` x `dtypes`; `rows` and `shown` the dtype indices drawn as rows and columns.
std::vector<GridColumn> grid_columns(const std::vector<DType>& dtypes, const std::vector<promote::Outcome>& cells,
                                     const std::vector<promote::Outcome>& other, const std::vector<int>& rows,
                                     const std::vector<int>& shown, bool scalar_b, const promote::Engine& e);

}  // namespace pl::ui
