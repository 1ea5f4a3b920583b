#include "app/ui/panels/promotion_columns.h"

#include <algorithm>
#include <string_view>

namespace pl::ui {
namespace {

// The Python type a scalar b of a column's dtype is (the engines draw a Python float for every
// float column, and so on).
std::string_view python_type(DType t) {
  switch (info(t).kind) {
    case DTypeKind::Float: return "float";
    case DTypeKind::Bool: return "bool";
    case DTypeKind::Complex: return "complex";
    default: return "int";
  }
}

// Alike, and for the same reason: a merged column shows one rule on hover.
bool same_answer(const promote::Outcome& x, const promote::Outcome& y) { return same_outcome(x, y) && x.rule == y.rule; }

}  // namespace

bool same_outcome(const promote::Outcome& x, const promote::Outcome& y) {
  return x.result == y.result && x.other_result == y.other_result && x.error_type == y.error_type &&
         x.message == y.message;
}

bool not_applicable(const promote::Outcome& o) {
  return o.error_type == "precision-lab" || o.error_type == "AttributeError";
}

std::vector<GridColumn> grid_columns(const std::vector<DType>& dtypes, const std::vector<promote::Outcome>& cells,
                                     const std::vector<promote::Outcome>& other, const std::vector<int>& rows,
                                     const std::vector<int>& shown, bool scalar_b, const promote::Engine& e) {
  std::vector<GridColumn> out;
  const size_t n = dtypes.size();
  if (!scalar_b) {
    for (int j : shown) out.push_back({j, {j}, short_name(dtypes[size_t(j)]), "b: " + e.spell(dtypes[size_t(j)])});
    return out;
  }
  auto same_column = [&](int p, int q) {
    for (int i : rows) {
      const size_t kp = size_t(i) * n + size_t(p), kq = size_t(i) * n + size_t(q);
      if (!same_answer(cells[kp], cells[kq])) return false;
      // In the compared grid a column its engine does not answer says nothing against the merge:
      // a Python complex is the same value in NumPy whichever torch dtype named the column
      // (else scenario 04's "complex c32" and "complex bc32" would stand apart as NumPy "errors").
      if (kq < other.size() && !not_applicable(other[kp]) && !not_applicable(other[kq]) &&
          !same_answer(other[kp], other[kq]))
        return false;
    }
    return true;
  };
  for (int j : shown) {
    if (!out.empty() && python_type(dtypes[size_t(out.back().dtype)]) == python_type(dtypes[size_t(j)]) &&
        same_column(out.back().dtype, j)) {
      out.back().members.push_back(j);
      continue;
    }
    out.push_back({j, {j}, "", ""});
  }
  for (GridColumn& c : out) {
    const std::string_view type = python_type(dtypes[size_t(c.dtype)]);
    const bool alone = std::count_if(out.begin(), out.end(), [&](const GridColumn& o) {
                         return python_type(dtypes[size_t(o.dtype)]) == type;
                       }) == 1;
    c.header.assign(type);
    if (!alone) c.header.append(" ").append(short_name(dtypes[size_t(c.dtype)]));
    c.tip.assign("b: a Python ").append(type).append(" (as a ").append(e.spell(dtypes[size_t(c.dtype)])).append(" column");
    if (c.members.size() > 1) {
      c.tip.append("; the");
      for (size_t m = 0; m < c.members.size(); ++m)
        c.tip.append(m == 0 ? " " : m + 1 == c.members.size() ? " and " : ", ")
            .append(short_name(dtypes[size_t(c.members[m])]));
      c.tip.append(" columns answer alike");
    }
    c.tip.append(")");
  }
  return out;
}

}  // namespace pl::ui
