// Where a point's name goes beside its marker in a figure: the first of a few places (right of
// the marker, left of it, then up to five lines above or below, beside it or centred over it) that
// covers no name already placed, no marker, no line drawn through the plot and not the legend,
// and stays inside the plot -- or, where every place does, the one that covers least. Kept apart
// from the drawing so that the choice can be tested without cairo.
#pragma once

#include <optional>
#include <vector>

namespace pl::figure {

struct LabelBox {
  double x0, y0, x1, y1;
};

// A straight piece of a line drawn in the plot (a series between two points, a reference line).
struct LabelSegment {
  double x0, y0, x1, y1;
};

// A name `w` wide and `h` high for the marker at (px, py), `gap` from it. `plot` clips: a part
// past its edges counts three times (a cut name is lost outright), as does a part over `legend`
// (drawn over the plot after the names); a marker covered twice (it hides a point), a name
// already placed once, and a line through the name as much as a name its height and the
// line's length inside it (the name's halo keeps its letters whole, but the line reads as
// struck through them).
//
// A name moved off its marker's line gets a leader to it (leader_of); `leaders` are those of the
// names placed before. A place whose leader crosses one of them counts as a name's height
// squared, and its leader through a name placed before as a line through it.
LabelBox choose_label_box(double w, double h, double gap, double px, double py, const LabelBox& plot,
                          const std::vector<LabelBox>& placed, const std::vector<LabelBox>& markers,
                          const std::vector<LabelSegment>& lines = {}, const LabelBox* legend = nullptr,
                          const std::vector<LabelSegment>& leaders = {});

// The leader from the marker at (px, py) to its name in box b, `h` the name's line height: from
// the marker to the middle of the name's nearer end, `pad` short of it, or straight up or down to
// a name over or under the marker; nothing where the name is on the marker's line (within a
// quarter of a line).
std::optional<LabelSegment> leader_of(const LabelBox& b, double px, double py, double h, double pad);

}  // namespace pl::figure
