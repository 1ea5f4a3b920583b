#include "core/figure/number_line_figure.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <utility>

#include "core/dtype/describe.h"
#include "core/util/number_text.h"

namespace pl::figure {

namespace {

// Whether every real number that x's shortest decimal could stand for (everything that reads
// back to the double) rounds in the format as the double does: the double's own rounding
// interval lies inside the format's. Not so where the double is an end of the format's interval
// (a tie, or a directed rounding's value): 1.0000000596046448 reads back to the tie
// 1.000000059604644775390625, which goes to 1 in float32, but lies past it and would round up.
bool shortest_rounds_alike(const Neighbourhood& n) {
  const double d = n.x;
  if (!std::isfinite(d) || !n.interval) return false;
  const RoundingInterval& iv = *n.interval;
  // (exact in a long double: half of a double's ulp takes one bit more)
  const long double lo = d - (static_cast<long double>(d) - std::nextafter(d, -INFINITY)) / 2;
  const long double hi = d + (static_cast<long double>(std::nextafter(d, INFINITY)) - d) / 2;
  const bool closed = (std::bit_cast<uint64_t>(d) & 1) == 0;  // nearest-even gives d its ties
  const bool lo_inside = iv.lo.unbounded || iv.lo.value < lo || (iv.lo.value == lo && (iv.lo.closed || !closed));
  const bool hi_inside = iv.hi.unbounded || hi < iv.hi.value || (iv.hi.value == hi && (iv.hi.closed || !closed));
  return lo_inside && hi_inside;
}

}  // namespace

Figure number_line_figure(const FloatFormat& f, const std::string& format_name, const Neighbourhood& n) {
  Figure fig;
  fig.name = "number-line-" + format_name;
  for (char& c : fig.name)
    if (c == ':') c = '-';
  const bool finite = std::isfinite(n.value);
  const double centre = n.centre ? decode(f, *n.centre) : n.value;
  const double ulp = ulp_at(f, centre);
  const std::string ulp_text = power_of_two_text(ulp).empty() ? shortest_double(ulp) : power_of_two_text(ulp);
  auto position = [&](long double v) { return static_cast<double>((v - centre) / ulp); };

  // x as typed where that decimal rounds as the double does, else by the double's own digits.
  const std::string x_text = shortest_rounds_alike(n) ? shortest_double(n.x) : float64_text(n.x);
  fig.title = format_name + ": the representable values around " + x_text;
  const std::string interval_approx =
      n.interval ? interval_text(*n.interval, kIntervalLabelDigits, decode(f, n.rounded.code)) : "";
  fig.subtitle = x_text + " rounds to " + display_value(describe_code(f, n.rounded.code));
  if (n.interval) fig.subtitle += "; so does every x in " + interval_approx;
  // The centre by its own digits, as the subtitle writes it (its shortest float64 decimal,
  // 9.99994610111476e-41 for float32's nearest to 1e-40, is not its value).
  const std::string centre_text = n.centre ? display_value(describe_code(f, *n.centre)) : shortest_double(centre);
  fig.x.label = "distance from " + centre_text + " in ulps of " + format_name + " (1 ulp = " + ulp_text + ")";
  fig.y.label = "";
  fig.y.ticks = false;
  fig.y.min = -1;
  fig.y.max = 1;

  Series values{"representable values", SeriesKind::Points, {}, {}, palette(0), false};
  Series chosen{"the value it rounds to", SeriesKind::Points, {}, {}, palette(1), false};
  for (uint64_t c : n.line) {
    Series& s = finite && c == n.rounded.code ? chosen : values;
    s.x.push_back(position(decode(f, c)));
    s.y.push_back(0);
  }
  fig.series.push_back(values);
  if (!chosen.x.empty()) fig.series.push_back(chosen);

  // x more than kOffAxisUlps past the values drawn stays off the axis, and the subtitle says
  // where: on it, 1e300 in float4_e2m1fn (5e299 ulps past 6) would crush every value into one
  // dot.
  constexpr double kOffAxisUlps = 64;
  const double at_x = std::isfinite(n.x) ? position(n.x) : NAN;
  double first = INFINITY, last = -INFINITY;  // the values drawn
  for (const Series* s : {&values, &chosen})
    for (double v : s->x) first = std::min(first, v), last = std::max(last, v);
  const bool drawn = first <= last;
  const bool x_on_axis =
      std::isfinite(at_x) && (!drawn || (at_x >= first - kOffAxisUlps && at_x <= last + kOffAxisUlps));
  if (std::isfinite(at_x) && !x_on_axis) {
    char past[64];
    std::snprintf(past, sizeof past, "%.3g", at_x > last ? at_x - last : first - at_x);
    fig.subtitle += std::string("; x is off the axis, ") + past + " ulps " + (at_x > last ? "right" : "left") +
                    " of the last value drawn";
  }

  if (n.interval && !values.x.empty()) {
    // An unbounded end runs past everything drawn, x included where it is on the axis (7 lies
    // half an ulp past float4_e2m1fn's 6 in (5, +inf], and an end at the last value would read
    // as a 1-ulp bracket that leaves x outside), and has no end mark: nothing closes it.
    double left = first, right = last;
    if (x_on_axis) left = std::min(left, at_x), right = std::max(right, at_x);
    const double margin = std::max(1.0, (right - left) / 20);
    const double lo = n.interval->lo.unbounded ? left - margin : position(n.interval->lo.value);
    const double hi = n.interval->hi.unbounded ? right + margin : position(n.interval->hi.value);
    // Its ends are in the subtitle: in the legend they made the box wide enough to cover the
    // values on the right of the line.
    fig.series.push_back({"rounding interval", SeriesKind::Line, {lo, hi}, {-0.35, -0.35}, palette(2), false});
    for (const auto& [end, unbounded] : {std::pair{lo, n.interval->lo.unbounded}, {hi, n.interval->hi.unbounded}})
      if (!unbounded) fig.series.push_back({"", SeriesKind::Line, {end, end}, {-0.5, -0.2}, palette(2), false});
  }
  // At max finite, mark where overflow begins and leave room to see past it.
  if (finite && n.interval && std::fabs(n.value) == max_finite(f)) {
    const Endpoint& edge = n.value > 0 ? n.interval->hi : n.interval->lo;
    if (!edge.unbounded) {
      const double at = position(edge.value);
      fig.annotations.push_back({AnnotationKind::VerticalLine, at,
                                 std::string("overflow beyond: ") + (f.has_inf()   ? "Inf"
                                                                     : f.has_nan() ? "NaN"
                                                                                   : "max"),
                                 palette(3), true});
      (n.value > 0 ? fig.x.max : fig.x.min) = at + (n.value > 0 ? 1.5 : -1.5);
    }
  }
  if (x_on_axis) fig.annotations.push_back({AnnotationKind::VerticalLine, at_x, "x = " + x_text, palette(5), true});
  return fig;
}

}  // namespace pl::figure
