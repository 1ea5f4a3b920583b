#include "core/export/figure_export.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/export/cairo_memory.h"
#include "core/export/label_place.h"
#include "core/export/pdf_dates.h"
#include "core/figure/line_thinning.h"
#include "core/figure/plot_layout.h"
#include "core/io/checked_write.h"
#include "core/util/csv_field.h"
#include "core/util/interrupt.h"
#include "core/util/markup_escape.h"
#include "core/util/number_text.h"

namespace pl::figure {
namespace {

void set_color(cairo_t* cr, const Color& c) { cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a); }

// A figure's text as an SVG <text> element rather than cairo's glyph outlines: what Inkscape and
// a slide editor can select and edit. Collected while the SVG is drawn (the rest is cairo's).
struct SvgText {
  double x = 0, y = 0, degrees = 0, size = 10;  // the baseline's start, in the SVG's units
  bool bold = false;
  double halo = 0;  // a white stroke this wide under the letters
  double r = 0, g = 0, b = 0, a = 1;
  std::string text;
};
thread_local std::vector<SvgText>* g_svg_text = nullptr;

// One <text> element; `paint` is its fill or, for a halo, its stroke (a halo is an element of
// its own drawn first, not paint-order: renderers that ignore paint-order would stroke over the
// letters).
std::string svg_text_element(const SvgText& t, const char* paint) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "<text x=\"%.2f\" y=\"%.2f\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"%.2f\"%s %s", t.x, t.y,
                t.size, t.bold ? " font-weight=\"bold\"" : "", paint);
  std::string out = buf;
  if (t.degrees != 0) {
    std::snprintf(buf, sizeof buf, " transform=\"rotate(%.2f %.2f %.2f)\"", t.degrees, t.x, t.y);
    out += buf;
  }
  return out + " xml:space=\"preserve\">" + markup_escaped(t.text) + "</text>\n";
}

std::string svg_text_elements(const std::vector<SvgText>& items) {
  std::string out;
  char paint[160];
  for (const SvgText& t : items) {
    if (t.halo > 0) {
      std::snprintf(paint, sizeof paint,
                    "fill=\"none\" stroke=\"rgb(255,255,255)\" stroke-width=\"%.2f\" stroke-linejoin=\"round\"",
                    t.halo);
      out += svg_text_element(t, paint);
    }
    std::snprintf(paint, sizeof paint, "fill=\"rgb(%d,%d,%d)\" fill-opacity=\"%.3g\"", int(std::lround(t.r * 255)),
                  int(std::lround(t.g * 255)), int(std::lround(t.b * 255)), t.a);
    out += svg_text_element(t, paint);
  }
  return out;
}

// `by_line`: place it vertically by the font's line box (ascent and descent) instead of its own
// ink, so that names side by side share a baseline: centred by its ink, "float8_e4m3fn" (whose
// underscores reach below the baseline) would sit 2-3 px above "float16".
// `halo`: a stroke of that width in white under the letters (a point's name over a line).
void text(cairo_t* cr, const std::string& s, double x, double y, double size, double align_x, double align_y,
          bool bold = false, bool by_line = false, double halo = 0) {
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr, s.c_str(), &e);
  double ty = y - e.height * align_y - e.y_bearing;
  if (by_line) {
    cairo_font_extents_t fe;
    cairo_font_extents(cr, &fe);
    ty = y - (fe.ascent + fe.descent) * align_y + fe.ascent;
  }
  const double tx = x - e.width * align_x - e.x_bearing;
  if (g_svg_text) {  // the same place and font, as an element of its own
    SvgText t;
    t.x = tx, t.y = ty;
    cairo_user_to_device(cr, &t.x, &t.y);
    cairo_matrix_t m;
    cairo_get_matrix(cr, &m);
    t.degrees = std::atan2(m.yx, m.xx) * 180 / M_PI;
    t.size = size * std::hypot(m.xx, m.yx);
    t.bold = bold;
    t.halo = halo * std::hypot(m.xx, m.yx);
    cairo_pattern_get_rgba(cairo_get_source(cr), &t.r, &t.g, &t.b, &t.a);
    t.text = s;
    g_svg_text->push_back(std::move(t));
    return;
  }
  if (halo > 0) {
    cairo_save(cr);
    cairo_move_to(cr, tx, ty);
    cairo_text_path(cr, s.c_str());
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_set_line_width(cr, halo);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_stroke(cr);
    cairo_restore(cr);
  }
  cairo_move_to(cr, tx, ty);
  cairo_show_text(cr, s.c_str());
}

// How far `t` advances in the current font.
double advance(cairo_t* cr, const std::string& t) {
  cairo_text_extents_t e;
  cairo_text_extents(cr, t.c_str(), &e);
  return e.x_advance;
}

// `t` as it fits `width` in the current font: whole, or cut with an ellipsis -- a whole UTF-8
// character at a time (a cut inside "×" or "³" is invalid UTF-8, which cairo does not draw).
std::string cut_to(cairo_t* cr, std::string t, double width) {
  if (advance(cr, t) <= width) return t;
  while (t.size() > 4 && advance(cr, t + "...") > width) {
    while (!t.empty() && (static_cast<unsigned char>(t.back()) & 0xC0) == 0x80) t.pop_back();  // continuation bytes
    if (!t.empty()) t.pop_back();
  }
  return t + "...";
}

// t cut in the middle to fit `width`: its start and up to 40% of the width of its end kept, with
// "..." between. A legend's labels often differ only in their last words ("..., rne)" and
// "..., rtz)"), which a cut at the end would make read the same.
std::string cut_middle(cairo_t* cr, const std::string& t, double width) {
  if (advance(cr, t) <= width) return t;
  size_t tail = t.size();  // where the kept end starts (a character's first byte)
  while (tail > 0) {
    size_t before = tail - 1;
    while (before > 0 && (static_cast<unsigned char>(t[before]) & 0xC0) == 0x80) --before;
    if (advance(cr, t.substr(before)) > 0.4 * width) break;
    tail = before;
  }
  const std::string end = t.substr(tail);
  return cut_to(cr, t.substr(0, tail), width - advance(cr, end)) + end;
}

// One line of text in `width`: at full size when it fits, else shrunk in 5% steps as far as
// `smallest`, and only then cut (at its end, or in its middle). `x` is where its `align_x` point
// goes (0 left, 0.5 centre).
void line_fitted(cairo_t* cr, const std::string& s, double x, double y, double size, double width, double smallest,
                 double align_x, bool bold = false, bool by_line = false, bool cut_in_middle = false) {
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  double scale = 1.0;
  for (; scale > smallest + 1e-9; scale -= 0.05) {
    cairo_set_font_size(cr, size * scale);
    if (advance(cr, s) <= width) break;
  }
  cairo_set_font_size(cr, size * scale);
  text(cr, cut_in_middle ? cut_middle(cr, s, width) : cut_to(cr, s, width), x, y, size * scale, align_x, 0.5, bold,
       by_line);
}

// A title in one line of `width`: shrunk as far as 65%, and only then cut (cut at once, a figure
// drawn small in the window would cut "The fixes for linear(x: torch.float64, ..." mid-word).
void title_fitted(cairo_t* cr, const std::string& s, double x, double y, double size, double width) {
  line_fitted(cr, s, x, y, size, width, 0.65, 0, true);
}

// Where lines_fitted breaks `s` in two at the current font size: the balanced break (the
// space's index), or the longest head that fits when no break lets the rest fit too, or npos
// when no head fits. Of the breaks that fit, the one that makes the longer line shortest, as
// CSS's text-wrap: balance: the longest first line would leave subtitles a last word alone below
// them ("... (K u >= 1)" over "fp16"). A break after a clause (',' ';' ':') is taken when its
// longer line is at most 20% longer than that: held to 10%, "inputs tf32, weights" over "tf32; f32
// OpenBLAS sgemm" would part a dtype from its operand, where the break after "weights tf32;" is
// 15% longer.
struct Break {
  size_t at = std::string::npos;
  bool both_fit = false;
};
Break find_break(cairo_t* cr, const std::string& s, double width) {
  Break greedy, balanced, clause;
  double best = 0, best_clause = 0;
  for (size_t at = s.find(' '); at != std::string::npos; at = s.find(' ', at + 1)) {
    const double head = advance(cr, s.substr(0, at));
    if (head > width) break;
    greedy.at = at;
    const double tail = advance(cr, s.substr(at + 1));
    if (tail > width) continue;
    const double longer = std::max(head, tail);
    if (!balanced.both_fit || longer < best) balanced = {at, true}, best = longer;
    if (at > 0 && std::strchr(",;:", s[at - 1]) && (!clause.both_fit || longer < best_clause))
      clause = {at, true}, best_clause = longer;
  }
  if (clause.both_fit && best_clause <= 1.2 * best) return clause;
  return balanced.both_fit ? balanced : greedy;
}

// `s` broken between words into two to `most` lines no wider than `width` at the current font
// size: two at find_break's break where both fit, else a first line as long as fits and the
// rest in the lines left; none where they do not fit, unless `cut`, which cuts the last line.
std::vector<std::string> broken_lines(cairo_t* cr, const std::string& s, double width, int most, bool cut) {
  const Break b = find_break(cr, s, width);
  if (b.at == std::string::npos) return {};
  if (b.both_fit) return {s.substr(0, b.at), s.substr(b.at + 1)};
  if (most > 2) {  // (b.at is the longest head that fits: no break let the rest fit in a line)
    const std::string rest = s.substr(b.at + 1);
    std::vector<std::string> lines = broken_lines(cr, rest, width, most - 1, cut);
    if (lines.empty() && cut) lines = {cut_to(cr, rest, width)};  // (the rest one unbroken run)
    if (!lines.empty()) lines.insert(lines.begin(), s.substr(0, b.at));
    return lines;
  }
  if (cut) return {s.substr(0, b.at), cut_to(cr, s.substr(b.at + 1), width)};
  return {};
}

// `s` in at most `most` lines of `width` from x, in 5% steps from `size` down to `smallest` of
// it: in one line centred on `y_one` where it fits (and `one_line` allows), else broken between
// words (broken_lines) into lines that fit, the first centred on `y_first` and each next `step`
// below; failing that, at `smallest` with the last line cut, or, with no space to break at, in
// one line cut. (One line shrunk and cut would hide the end of long subtitles -- the throughput
// figure's "not hardware speed".)
void lines_fitted(cairo_t* cr, const std::string& s, double x, double y_one, double y_first, double step, double size,
                  double width, double smallest, bool bold, bool one_line, int most = 2) {
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  for (double scale = 1.0; scale >= smallest - 1e-9; scale -= 0.05) {
    cairo_set_font_size(cr, size * scale);
    if (one_line && advance(cr, s) <= width) return text(cr, s, x, y_one, size * scale, 0, 0.5, bold);
    const std::vector<std::string> lines = broken_lines(cr, s, width, most, scale < smallest + 1e-9);
    if (lines.empty()) continue;  // no space early enough, or more lines than `most`: smaller
    for (size_t i = 0; i < lines.size(); ++i)
      text(cr, lines[i], x, y_first + step * double(i), size * scale, 0, 0.5, bold);
    return;
  }
  // One unbroken run of characters wider than the figure: cut it.
  cairo_set_font_size(cr, size * smallest);
  text(cr, cut_to(cr, s, width), x, y_one, size * smallest, 0, 0.5, bold);
}

// Text in at most `most` lines of `width` (lines_fitted), down to kHeaderSmallest: one line
// centred on y, or lines kSubtitleStep apart at `size` kSubtitlePx from a first just above y.
void text_fitted(cairo_t* cr, const std::string& s, double x, double y, double size, double width, int most = 2) {
  lines_fitted(cr, s, x, y, y - 3 * size / kSubtitlePx, kSubtitleStep * size / kSubtitlePx, size, width,
               kHeaderSmallest, false, true, most);
}

constexpr double kCellLabelPx = 10;  // a heat map cell's label, as the tick labels beside the map

void draw_heatmap(cairo_t* cr, const Heatmap& h, double x0, double y0, double w, double hgt, double fs) {
  if (h.rows == 0 || h.cols == 0) return;
  cairo_surface_t* img =
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, static_cast<int>(h.cols), static_cast<int>(h.rows));
  cairo_surface_flush(img);
  unsigned char* data = cairo_image_surface_get_data(img);
  const int stride = cairo_image_surface_get_stride(img);
  for (size_t r = 0; r < h.rows; ++r)
    for (size_t c = 0; c < h.cols; ++c) {
      const Color col = heatmap_cell_colour(h, h.values[r * h.cols + c]);
      auto* px = reinterpret_cast<uint32_t*>(data + r * stride) + c;
      *px = (static_cast<uint32_t>(col.r * 255 + 0.5) << 16) | (static_cast<uint32_t>(col.g * 255 + 0.5) << 8) |
            static_cast<uint32_t>(col.b * 255 + 0.5);
    }
  cairo_surface_mark_dirty(img);
  cairo_save(cr);
  cairo_rectangle(cr, x0, y0, w, hgt);
  cairo_clip(cr);
  cairo_translate(cr, x0, y0);
  cairo_scale(cr, w / static_cast<double>(h.cols), hgt / static_cast<double>(h.rows));
  cairo_set_source_surface(cr, img, 0, 0);
  cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
  cairo_paint(cr);
  cairo_restore(cr);
  cairo_surface_destroy(img);
  for (const CellLabel& label : heatmap_cell_labels(h, w, hgt, kCellLabelPx * fs)) {
    const double shade = label.dark ? 0.1 : 0.96;
    cairo_set_source_rgb(cr, shade, shade, shade);
    text(cr, std::string(label.text), x0 + label.x, y0 + label.y, kCellLabelPx * fs, 0.5, 0.5);
  }
  // A frame just outside the cells (the window's shader paints over the cells only): a white
  // exact cell at the map's edge is still a cell, not the figure's background.
  cairo_set_source_rgb(cr, 0.55, 0.55, 0.55);
  cairo_set_line_width(cr, 1 * fs);
  cairo_rectangle(cr, x0 - 0.5 * fs, y0 - 0.5 * fs, w + 1 * fs, hgt + 1 * fs);
  cairo_stroke(cr);
  // Colour bar.
  const ColourBar c = colour_bar(h, y0, y0 + hgt);
  const double bx = x0 + w + c.bar * fs, bw = c.width * fs;
  for (int i = 0; i < 200; ++i) {
    set_color(cr, colormap(h.map, i / 199.0));
    const double yy = y0 + hgt - (i + 1) * hgt / 200;
    cairo_rectangle(cr, bx, yy, bw, hgt / 200 + 0.5);
    cairo_fill(cr);
  }
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  const AxisMap bar{h.vmin, h.vmax, false, y0 + hgt, y0};
  for (size_t i = 0; i < c.ticks.size(); ++i)
    text(cr, c.labels[i], x0 + w + c.texts * fs, bar.to_pixel(c.ticks[i]), 10 * fs, 0, 0.5);
  cairo_save(cr);
  cairo_translate(cr, x0 + w + c.title * fs, y0 + hgt / 2);
  cairo_rotate(cr, -M_PI / 2);
  text(cr, h.colorbar_label, 0, 0, 11 * fs, 0.5, 0.5);
  cairo_restore(cr);
  if (c.exact) {  // the colour outside the map, keyed under the bar
    const double sy = y0 + hgt + 8 * fs;
    cairo_rectangle(cr, bx, sy, bw, 10 * fs);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 0.8);
    cairo_stroke(cr);
    text(cr, "exact", x0 + w + c.texts * fs, sy + 5 * fs, 10 * fs, 0, 0.5);
  }
}

// The axes' titles: x centred under the plot, y turned up the left side at `y_label_x`.
void axis_labels(cairo_t* cr, const Figure& f, const PlotLayout& l, double H, double y_label_x, double fs) {
  const double foot = l.legend.columns.empty() ? 0 : l.legend.height;  // a legend under it
  text(cr, f.x.label, (l.x0 + l.x1) / 2, H - 18 * fs - foot, 12 * fs, 0.5, 0.5);
  cairo_save(cr);
  cairo_translate(cr, y_label_x, (l.y0 + l.y1) / 2);
  cairo_rotate(cr, -M_PI / 2);
  // Within the figure's height: shrunk as far as 70%, then cut (scenario 11's "normwise relative
  // error ||e||_F / ||ref||_F" would run past both ends of a short figure in presentation mode).
  // (Below the subtitle where the header starts at the figure's margin, over the label's x.)
  const double centre = (l.y0 + l.y1) / 2;
  const double top = l.header_left < l.x0 ? l.y0 - kPlotBelow * fs / 2 : 4 * fs;
  const double room = std::max(2 * (std::min(centre - top, H - 4 * fs - centre)), 40 * fs);
  // A title longer than the plot is tall takes two lines, broken at the space that balances
  // them, when both fit the figure's height: shrunk into one it would run from above the plot to
  // the figure's bottom edge (scenarios 11 and 18 in presentation mode at 1280x800).
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, 12 * fs);
  const double tall = l.y1 - l.y0 + 8 * fs;
  if (advance(cr, f.y.label) > tall) {
    size_t best = std::string::npos;
    double widest = advance(cr, f.y.label);
    for (size_t at = f.y.label.find(' '); at != std::string::npos; at = f.y.label.find(' ', at + 1)) {
      const double w = std::max(advance(cr, f.y.label.substr(0, at)), advance(cr, f.y.label.substr(at + 1)));
      if (w < widest) widest = w, best = at;
    }
    if (best != std::string::npos && widest <= room) {
      // Each line within the plot's height where 80% of the size does it, else at 80% and past it.
      const double size = 12 * fs * std::clamp(tall / widest, 0.8, 1.0);
      // The second line where one line would be, the first left of it (towards the edge, not
      // into the tick labels), kept clear of the figure's edge.
      const double step = 1.25 * size, first = std::max(-step, 0.55 * size - y_label_x);
      line_fitted(cr, f.y.label.substr(0, best), 0, first, size, room, 1.0, 0.5);
      line_fitted(cr, f.y.label.substr(best + 1), 0, first + step, size, room, 1.0, 0.5);
      cairo_restore(cr);
      return;
    }
  }
  line_fitted(cr, f.y.label, 0, 0, 12 * fs, room, 0.7, 0.5);
  cairo_restore(cr);
}

// The plot's coordinates: data to pixels through the layout's axes, at text scale `fs`.
struct Plot {
  const PlotLayout& l;
  double fs;
  double mx(double v) const { return l.x.to_pixel(v); }
  double my(double v) const { return l.y.to_pixel(v); }
};

// A point's name, drawn after every series is: a marker drawn after its name would cover it.
struct PointLabel {
  std::string text;
  double px, py;
};

// The names beside their markers (label_place.h chooses where), each with a halo of the
// background so that a line crossing it does not cut its letters, and a thin leader to its
// marker when it moves off the marker's line.
void draw_point_labels(cairo_t* cr, const std::vector<PointLabel>& labels, const std::vector<LabelBox>& markers,
                       const std::vector<LabelSegment>& lines, const LabelBox& plot, const LabelBox* legend,
                       double fs) {
  const double size = 9 * fs;
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
  cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
  const double h = 1.5 * size, gap = 6 * fs;  // (h: a line with room between)
  std::vector<LabelBox> placed;
  std::vector<LabelSegment> leaders;
  for (const PointLabel& l : labels) {
    placed.push_back(
        choose_label_box(advance(cr, l.text), h, gap, l.px, l.py, plot, placed, markers, lines, legend, leaders));
    if (const auto leader = leader_of(placed.back(), l.px, l.py, h, 1 * fs)) leaders.push_back(*leader);
  }
  // Every leader first, then every name over them: a later name's leader would cross an earlier name.
  cairo_set_line_width(cr, 0.6 * fs);
  for (const LabelSegment& s : leaders) {
    cairo_move_to(cr, s.x0, s.y0);
    cairo_line_to(cr, s.x1, s.y1);
    cairo_stroke(cr);
  }
  for (size_t i = 0; i < labels.size(); ++i)
    text(cr, labels[i].text, placed[i].x0, (placed[i].y0 + placed[i].y1) / 2, size, 0, 0.5, false, false, 2.5 * fs);
}

// A heat map figure: the cells and colour bar, the axes' titles and the corner indices.
// Category names under an axis, all in one size, each centred at centre(i) within `width`: on
// one line at full size when every name fits; else a name too wide breaks at a space onto a
// second line; only when one still does not fit do all shrink together (to `smallest`), and only
// then is one cut. (Shrunk each on its own, "e4m3fn channel" would stand in half the type of "bf16".)
void category_labels(cairo_t* cr, const std::vector<std::string>& names, const std::vector<std::string>& shorter,
                     const std::function<double(size_t)>& centre, double y, double size, double width,
                     double smallest) {
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  // A name's lines at the current size: itself, or split at the space that leaves the narrower
  // longer line, when it is too wide and has one.
  auto lines = [&](const std::string& n) -> std::vector<std::string> {
    if (advance(cr, n) <= width) return {n};
    std::vector<std::string> best{n};
    double widest = advance(cr, n);
    for (size_t at = n.find(' '); at != std::string::npos; at = n.find(' ', at + 1)) {
      std::vector<std::string> two{n.substr(0, at), n.substr(at + 1)};
      const double w = std::max(advance(cr, two[0]), advance(cr, two[1]));
      if (w < widest) best = std::move(two), widest = w;
    }
    return best;
  };
  // The largest scale, in steps of 5% down to `floor`, at which every name fits whole; 0 if
  // none does.
  auto fitting_scale = [&](const std::vector<std::string>& ns, double floor) {
    for (double scale = 1.0; scale > floor - 1e-9; scale -= 0.05) {
      cairo_set_font_size(cr, size * scale);
      if (std::all_of(ns.begin(), ns.end(), [&](const std::string& n) {
            for (const std::string& line : lines(n))
              if (advance(cr, line) > width) return false;
            return true;
          }))
        return scale;
    }
    return 0.0;
  };
  // The names, or their shorter forms where the names would be cut and those fit, down to 60% of
  // the size (cut, a speed-up chart's dtypes beside a story at 1280x800 would read "float...",
  // "bflo...", and its "e4m3fn" needs 62%), or the names cut.
  const std::vector<std::string>* shown = &names;
  double scale = fitting_scale(names, smallest);
  if (scale == 0 && shorter.size() == names.size())
    if (const double s = fitting_scale(shorter, std::min(smallest, 0.6)); s > 0) shown = &shorter, scale = s;
  if (scale == 0) scale = smallest;
  cairo_set_font_size(cr, size * scale);
  for (size_t i = 0; i < shown->size(); ++i) {
    const std::vector<std::string> ls = lines((*shown)[i]);
    for (size_t k = 0; k < ls.size(); ++k)
      text(cr, cut_to(cr, ls[k], width), centre(i), y + double(k) * 1.15 * size * scale, size * scale, 0.5, 0.5,
           false, true);
  }
}

// The integer ticks along a heat map's side: the matrix's rows or columns where the map has a
// matrix (a pooled map's cells cover blocks of them), else its cells; each at the edge of the
// row or column it counts. draw(pixel, text) draws one.
template <class Draw>
void heatmap_ticks(size_t cells, size_t block, size_t matrix, double p0, double p1, double fs, Draw draw) {
  if (cells == 0) return;
  const double count = matrix > 0 ? double(matrix) : double(cells);
  const double per_cell = matrix > 0 ? double(std::max<size_t>(block, 1)) : 1.0;
  std::vector<double> ticks;
  for (double v : axis_ticks(AxisMap{0, count, false, 0, std::fabs(p1 - p0) / fs}))
    if (v == std::floor(v)) ticks.push_back(v);
  if (ticks.empty() || ticks.back() != count) ticks.push_back(count);  // the far edge says how many
  // A tick too close to the far edge's label gives way to it.
  if (ticks.size() > 2 && (count - ticks[ticks.size() - 2]) / count * std::fabs(p1 - p0) < 36 * fs)
    ticks.erase(ticks.end() - 2);
  const std::vector<std::string> labels = tick_labels(ticks, false);
  for (size_t i = 0; i < ticks.size(); ++i)
    draw(p0 + std::min(ticks[i] / per_cell / double(cells), 1.0) * (p1 - p0), labels[i]);
}

void draw_heatmap_figure(cairo_t* cr, const Figure& f, const PlotLayout& l, double H, double fs) {
  draw_heatmap(cr, *f.heatmap, l.x0, l.y0, l.x1 - l.x0, l.y1 - l.y0, fs);
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  axis_labels(cr, f, l, H, 22 * fs, fs);
  // Named columns and rows (a scan's candidates and layers) under and beside their cells, each
  // name within its cell (rows too thin for a line name every few); numbered ones at the corners.
  const double cw = (l.x1 - l.x0) / double(std::max<size_t>(f.heatmap->cols, 1));
  const double rh = (l.y1 - l.y0) / double(std::max<size_t>(f.heatmap->rows, 1));
  if (f.x.categories.size() == f.heatmap->cols && !f.x.categories.empty()) {
    category_labels(
        cr, f.x.categories, f.x.short_categories, [&](size_t i) { return l.x0 + (double(i) + 0.5) * cw; },
        l.y1 + 14 * fs, 10 * fs, cw - 4 * fs, 0.6);
  } else {
    const Heatmap& h = *f.heatmap;
    heatmap_ticks(h.cols, h.block_cols, h.matrix_cols, l.x0, l.x1, fs, [&](double x, const std::string& s) {
      cairo_move_to(cr, x, l.y1);
      cairo_line_to(cr, x, l.y1 + 4 * fs);
      cairo_set_line_width(cr, 1 * fs);
      cairo_stroke(cr);
      text(cr, s, x, l.y1 + 14 * fs, 10 * fs, 0.5, 0.5);
    });
  }
  if (f.y.categories.size() == f.heatmap->rows && !f.y.categories.empty()) {
    const size_t every = std::max<size_t>(1, static_cast<size_t>(std::ceil(11 * fs / std::max(rh, 1e-9))));
    for (size_t i = 0; i < f.y.categories.size(); i += every)
      line_fitted(cr, f.y.categories[i], l.x0 - 4 * fs, l.y0 + (double(i) + 0.5) * rh, 10 * fs, l.x0 - 30 * fs, 0.6, 1);
  } else {
    const Heatmap& h = *f.heatmap;
    heatmap_ticks(h.rows, h.block_rows, h.matrix_rows, l.y0, l.y1, fs, [&](double y, const std::string& s) {
      cairo_move_to(cr, l.x0 - 4 * fs, y);
      cairo_line_to(cr, l.x0, y);
      cairo_set_line_width(cr, 1 * fs);
      cairo_stroke(cr);
      text(cr, s, l.x0 - 6 * fs, y, 10 * fs, 1, 0.5);
    });
  }
}

// Grid, ticks (or category names) and the plot's frame.
void draw_axes(cairo_t* cr, const Figure& f, const Plot& p, double H) {
  const PlotLayout& l = p.l;
  const double fs = p.fs;
  cairo_set_line_width(cr, 1);
  if (!f.x.categories.empty()) {
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    // Each name within its own bar's slot, less a gap (drawn small, neighbours would run together).
    category_labels(
        cr, f.x.categories, f.x.short_categories, [&](size_t i) { return p.mx(double(i) + 0.5); }, l.y1 + 14 * fs,
        10 * fs, std::fabs(p.mx(1) - p.mx(0)) - 6 * fs, 0.75);
  }
  const std::vector<double> xt = f.x.categories.empty() && f.x.ticks ? axis_ticks(l.x) : std::vector<double>{};
  const std::vector<std::string> xs = tick_labels(xt, f.x.log);
  for (size_t i = 0; i < xt.size(); ++i) {
    const double px = p.mx(xt[i]);
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, px, l.y0);
    cairo_line_to(cr, px, l.y1);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    text(cr, xs[i], px, l.y1 + 14 * fs, 10 * fs, 0.5, 0.5);
  }
  const std::vector<double> yt = f.y.ticks ? axis_ticks(l.y) : std::vector<double>{};
  const std::vector<std::string> ys = tick_labels(yt, f.y.log);
  for (size_t i = 0; i < yt.size(); ++i) {
    const double py = p.my(yt[i]);
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, l.x0, py);
    cairo_line_to(cr, l.x1, py);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    text(cr, ys[i], l.x0 - 6 * fs, py, 10 * fs, 1, 0.5);
  }
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  cairo_rectangle(cr, l.x0, l.y0, l.x1 - l.x0, l.y1 - l.y0);
  cairo_stroke(cr);
  axis_labels(cr, f, l, H, 18 * fs, fs);
}

// A histogram's outline: up and across each bin from `base`, and down at the end.
void draw_steps(cairo_t* cr, const Figure& f, const Series& s, const Plot& p, double base) {
  set_color(cr, s.color);
  cairo_set_line_width(cr, (s.width > 0 ? s.width : 2) * p.fs);
  bool pen = false;
  for (size_t i = 0; i + 1 < s.x.size() && i < s.y.size(); ++i) {
    if (f.x.log && s.x[i] <= 0) continue;
    const double a = p.mx(s.x[i]), b = p.mx(s.x[i + 1]);
    const double top_y = s.y[i] > 0 ? p.my(s.y[i]) : base;
    if (!pen) cairo_move_to(cr, a, base);
    cairo_line_to(cr, a, top_y);
    cairo_line_to(cr, b, top_y);
    pen = true;
  }
  if (!pen) return;
  cairo_rel_line_to(cr, 0, 0);
  cairo_line_to(cr, p.mx(s.x[std::min(s.x.size(), s.y.size() + 1) - 1]), base);
  cairo_stroke(cr);
}

// Bars: a translucent fill with an opaque outline.
void draw_bars(cairo_t* cr, const Figure& f, const Series& s, const Plot& p, double base) {
  Color c = s.color;
  for (size_t i = 0; i + 1 < s.x.size() && i < s.y.size(); ++i) {
    if (!(s.y[i] > 0) || (f.x.log && s.x[i] <= 0)) continue;
    const double a = p.mx(s.x[i]), b = p.mx(s.x[i + 1]), top_y = p.my(s.y[i]);
    c.a = 0.45;
    set_color(cr, c);
    cairo_rectangle(cr, a, top_y, b - a, base - top_y);
    cairo_fill_preserve(cr);
    c.a = 1;
    set_color(cr, c);
    cairo_set_line_width(cr, 0.8);
    cairo_stroke(cr);
  }
}

// Dashes for a bound, dots (round caps on dashes of length 0) for an estimate beside it.
void set_line_pattern(cairo_t* cr, bool dashed, bool dotted, double fs) {
  if (dotted) {
    const double d[] = {0, 4 * fs};
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    cairo_set_dash(cr, d, 2, 0);
  } else if (dashed) {
    const double d[] = {6 * fs, 4 * fs};
    cairo_set_dash(cr, d, 2, 0);
  }
}

}  // namespace

std::optional<PixelColumns> raster_columns(cairo_t* cr) {
  if (cairo_surface_get_type(cairo_get_target(cr)) != CAIRO_SURFACE_TYPE_IMAGE) return std::nullopt;
  cairo_matrix_t m;
  cairo_get_matrix(cr, &m);
  if (!(m.xx > 0) || m.xy != 0 || m.yx != 0) return std::nullopt;
  // Device x = xx * x + x0: a device pixel is 1 / xx wide, and device x = 0 lies at -x0 / xx.
  return PixelColumns{1 / m.xx, -m.x0 / m.xx};
}

namespace {

// A marker: a measurement's filled dot; a dashed series' ring and a dotted series' cross (a bound
// or an estimate at one length of a dot sweep), which the dot would make read as one more
// measurement (scenarios 08 and 22, `dot --k 4096`).
void draw_marker(cairo_t* cr, double x, double y, double fs, bool dashed, bool dotted) {
  cairo_new_sub_path(cr);
  if (!dashed && !dotted) {
    cairo_arc(cr, x, y, 3.5 * fs, 0, 2 * M_PI);
    cairo_fill(cr);
    return;
  }
  cairo_save(cr);
  cairo_set_dash(cr, nullptr, 0, 0);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
  cairo_set_line_width(cr, 1.8 * fs);
  if (dotted) {
    const double r = 3.2 * fs;
    cairo_move_to(cr, x - r, y - r);
    cairo_line_to(cr, x + r, y + r);
    cairo_move_to(cr, x - r, y + r);
    cairo_line_to(cr, x + r, y - r);
  } else {
    cairo_arc(cr, x, y, 3.5 * fs, 0, 2 * M_PI);
  }
  cairo_stroke(cr);
  cairo_restore(cr);
}

// A line (solid, dashed or dotted) or points; a line's point with no drawable neighbour has no segment
// to show it (a bound that exists at one length of a dot sweep only): it gets a marker.
void draw_line_or_points(cairo_t* cr, const Figure& f, const Series& s, const Plot& p, std::vector<PointLabel>& labels,
                         std::vector<LabelBox>& markers, std::vector<LabelSegment>& lines) {
  const double fs = p.fs;
  set_color(cr, s.color);
  cairo_set_line_width(cr, (s.width > 0 ? s.width : 2) * fs);
  set_line_pattern(cr, s.dashed, s.dotted, fs);
  const size_t n = std::min(s.x.size(), s.y.size());
  auto drawable = [&](size_t i) {
    return i < n && std::isfinite(s.x[i]) && std::isfinite(s.y[i]) && (!f.x.log || s.x[i] > 0) &&
           (!f.y.log || s.y[i] > 0);
  };
  std::vector<std::pair<double, double>> isolated;  // drawn after the line
  // A solid line on a raster is thinned to what its pixels show. (A dashed or dotted one keeps
  // every point: its pattern is laid along the path's length, which thinning shortens.)
  const std::optional<PixelColumns> columns =
      s.kind == SeriesKind::Line && !s.dashed && !s.dotted ? raster_columns(cr) : std::nullopt;
  std::vector<PixelPoint> run;  // the line's drawable points since its last gap
  auto draw_run = [&] {
    if (run.size() == 1) isolated.emplace_back(run[0].x, run[0].y);
    const std::vector<PixelPoint> drawn = columns ? thin_to_columns(run, *columns) : run;
    for (size_t k = 0; k < drawn.size(); ++k) {
      if (k == 0) {
        cairo_move_to(cr, drawn[k].x, drawn[k].y);
        continue;
      }
      lines.push_back({drawn[k - 1].x, drawn[k - 1].y, drawn[k].x, drawn[k].y});
      cairo_line_to(cr, drawn[k].x, drawn[k].y);
    }
    run.clear();
  };
  const std::vector<double> xs = p.l.x.to_pixels(s.x), ys = p.l.y.to_pixels(s.y);
  for (size_t i = 0; i < n; ++i) {
    if (!drawable(i)) {
      draw_run();
      continue;
    }
    const double px = xs[i], py = ys[i];
    if (s.kind == SeriesKind::Points) {
      draw_marker(cr, px, py, fs, s.dashed, s.dotted);
      const double r = 3.5 * fs + 1;  // (and a pixel for its edge)
      markers.push_back({px - r, py - r, px + r, py + r});
      if (i < s.point_labels.size()) labels.push_back({s.point_labels[i], px, py});
      continue;
    }
    run.push_back({px, py});
  }
  draw_run();
  if (s.kind == SeriesKind::Line) {
    // Round joins: a mitre at a sharp turn (a noisy loss's every step) would draw a spike up to
    // five line widths past the data, where no value lies.
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_stroke(cr);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
  }
  cairo_set_dash(cr, nullptr, 0, 0);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
  for (const auto& [px, py] : isolated) {
    if (s.dashed || s.dotted) {
      draw_marker(cr, px, py, fs, s.dashed, s.dotted);
      continue;
    }
    cairo_new_sub_path(cr);
    cairo_arc(cr, px, py, 2.5 * fs, 0, 2 * M_PI);
    cairo_fill(cr);
  }
}

// Vertical and horizontal reference lines across the plot.
void draw_annotations(cairo_t* cr, const Figure& f, const Plot& p, std::vector<LabelSegment>& lines) {
  const PlotLayout& l = p.l;
  for (const Annotation& a : f.annotations) {
    set_color(cr, a.color);
    cairo_set_line_width(cr, 1.6 * p.fs);
    if (a.dashed) {
      const double d[] = {5 * p.fs, 4 * p.fs};
      cairo_set_dash(cr, d, 2, 0);
    }
    if (a.kind == AnnotationKind::VerticalLine) {
      cairo_move_to(cr, p.mx(a.value), l.y0);
      cairo_line_to(cr, p.mx(a.value), l.y1);
      lines.push_back({p.mx(a.value), l.y0, p.mx(a.value), l.y1});
    } else {
      cairo_move_to(cr, l.x0, p.my(a.value));
      cairo_line_to(cr, l.x1, p.my(a.value));
      lines.push_back({l.x0, p.my(a.value), l.x1, p.my(a.value)});
    }
    cairo_stroke(cr);
    cairo_set_dash(cr, nullptr, 0, 0);
  }
}

// Legend: series, then annotations, in the corner of the plot that hides the least data.
void draw_legend(cairo_t* cr, const Figure& f, const PlotLayout& l, double fs) {
  if (l.legend.entries == 0) return;
  double lw = l.legend.width;
  double ly = l.legend.top + 12 * fs;
  double lx = l.legend.left + 4 * fs;
  size_t k = 0;  // the entry's place in the legend, for its lines
  // In columns (a legend under the figure): entry k in column k % columns, row by row.
  const std::vector<double>& columns = l.legend.columns;
  const auto place = [&] {
    if (columns.empty()) return;
    const size_t col = k % columns.size(), row = k / columns.size();
    lx = l.legend.left + 4 * fs;
    for (size_t c = 0; c < col; ++c) lx += columns[c] + kLegendColumnGap * fs;
    lw = columns[col];
    ly = l.legend.top + 12 * fs;
    for (size_t above = 0; above < row * columns.size(); above += columns.size()) {  // each row above
      size_t most = 1;
      for (size_t e = above; e < above + columns.size() && e < l.legend.lines.size(); ++e)
        most = std::max(most, l.legend.lines[e].size());
      ly += legend_entry_height(most, fs);
    }
  };
  // Each swatch as its series is drawn: a bar's translucent fill and outline, a line's width, a
  // marker.
  auto entry = [&](const std::string& label, const Color& c, bool dashed, bool dotted, bool box, double width,
                   bool dot) {
    if (label.empty()) return;
    place();
    const std::vector<std::string> lines =
        k < l.legend.lines.size() ? l.legend.lines[k] : std::vector<std::string>{label};
    ++k;
    const double more = kLegendLine * fs * static_cast<double>(lines.size() - 1);
    cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
    cairo_rectangle(cr, lx - 4 * fs, ly - 8 * fs, lw - 4 * fs, kLegendEntry * fs + more);
    cairo_fill(cr);
    set_color(cr, c);
    if (box) {
      Color fill = c;
      fill.a = 0.45;
      set_color(cr, fill);
      cairo_rectangle(cr, lx, ly - 5 * fs, 18 * fs, 10 * fs);
      cairo_fill_preserve(cr);
      set_color(cr, c);
      cairo_set_line_width(cr, 0.8);
      cairo_stroke(cr);
    } else if (dot) {  // markers: one marker, as they are drawn
      draw_marker(cr, lx + 9 * fs, ly, fs, dashed, dotted);
    } else {
      cairo_set_line_width(cr, (width > 0 ? width : 2) * fs);
      set_line_pattern(cr, dashed, dotted, fs);
      cairo_move_to(cr, lx, ly);
      cairo_line_to(cr, lx + 18 * fs, ly);
      cairo_stroke(cr);
      cairo_set_dash(cr, nullptr, 0, 0);
      cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
    }
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    // The box is held to 60% of the plot (plot_layout.cpp): a long label is fitted to it.
    for (size_t i = 0; i < lines.size(); ++i)
      // Centred by the font's line, not the label's ink: by its ink, "input rounding" (a
      // descender) would sit 2 px higher than "arithmetic", and the entries would look unevenly
      // spaced.
      line_fitted(cr, lines[i], lx + 24 * fs, ly + kLegendLine * fs * static_cast<double>(i), 10 * fs, lw - 34 * fs,
                  0.75, 0, false, true, /*cut_in_middle=*/true);
    ly += kLegendEntry * fs + more;
  };
  for (const Series& s : f.series)
    if (s.in_legend)
      entry(s.label, s.color, s.dashed, s.dotted, s.kind == SeriesKind::Bars, s.width, s.kind == SeriesKind::Points);
  for (const Annotation& a : f.annotations) entry(a.label, a.color, a.dashed, false, false, 0, false);
}

}  // namespace

const char* extension(FileType t) {
  switch (t) {
    case FileType::Png: return "png";
    case FileType::Svg: return "svg";
    case FileType::Pdf: return "pdf";
    case FileType::Csv: return "csv";
  }
  return "";
}

void draw_figure(cairo_t* cr, const Figure& f, double W, double H, double fs) {
  // Text as wide as the font's own advances at every size, which the layout measures it by
  // (text_width): an image surface hints its metrics by default, rounding each glyph's advance
  // to whole pixels, and a label or subtitle the layout gave room would be cut or broken when drawn
  // (scenario 14's "... rounded to z..." and its legend's "round" over "trip").
  cairo_font_options_t* unhinted = cairo_font_options_create();
  cairo_font_options_set_hint_metrics(unhinted, CAIRO_HINT_METRICS_OFF);
  cairo_set_font_options(cr, unhinted);
  cairo_font_options_destroy(unhinted);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  const PlotLayout l = layout_figure(f, W, H, fs);
  // The title and subtitle from where the layout starts them, the title in its lines.
  const double left = l.header_left, width = W - left - kHeaderMargin * fs;
  const double title_y = kTitleY * fs, last_title_line = title_y + kTitleStep * fs * (l.title_lines - 1);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  if (l.title_lines == 2) {
    lines_fitted(cr, f.title, left, title_y, title_y, kTitleStep * fs, kTitlePx * fs, width, kHeaderSmallest, true,
                 false);
  } else {
    title_fitted(cr, f.title, left, title_y, kTitlePx * fs, width);
  }
  cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
  text_fitted(cr, f.subtitle, left, last_title_line + kSubtitleBelow * fs, kSubtitlePx * fs, width, l.subtitle_lines);
  if (f.heatmap) return draw_heatmap_figure(cr, f, l, H, fs);

  const Plot p{l, fs};
  draw_axes(cr, f, p, H);
  // Data, clipped to the plot.
  cairo_save(cr);
  cairo_rectangle(cr, l.x0, l.y0, l.x1 - l.x0, l.y1 - l.y0);
  cairo_clip(cr);
  const double base = f.y.log ? l.y1 : p.my(std::max(l.y.lo, 0.0));
  std::vector<PointLabel> labels;
  std::vector<LabelBox> markers;
  std::vector<LabelSegment> lines;
  for (const Series& s : f.series) {
    if (s.kind == SeriesKind::Steps) draw_steps(cr, f, s, p, base);
    else if (s.kind == SeriesKind::Bars) draw_bars(cr, f, s, p, std::isfinite(s.base) ? p.my(s.base) : base);
    else draw_line_or_points(cr, f, s, p, labels, markers, lines);
  }
  draw_annotations(cr, f, p, lines);
  const LabelBox legend{l.legend.left, l.legend.top, l.legend.left + l.legend.width, l.legend.top + l.legend.height};
  draw_point_labels(cr, labels, markers, lines, {l.x0, l.y0, l.x1, l.y1}, l.legend.entries ? &legend : nullptr, fs);
  cairo_restore(cr);
  draw_legend(cr, f, l, fs);
}

std::string figure_csv(const Figure& f) {
  std::string out;
  if (f.heatmap) {
    const Heatmap& h = *f.heatmap;
    const std::vector<double>& values = h.csv_values.empty() ? h.values : h.csv_values;
    out = "# " + f.title + ": " + h.colorbar_label + ", row-major " + std::to_string(h.rows) + " x " +
          std::to_string(h.cols) + (h.csv_note.empty() ? "" : "; " + h.csv_note) + "\n";
    for (size_t r = 0; r < h.rows; ++r) {
      for (size_t c = 0; c < h.cols; ++c) {
        if (c) out += ',';  // appended, not (c ? "," : "") + ...: GCC 12's false -Wrestrict (bug 105329)
        out += shortest_double(values[r * h.cols + c]);
      }
      out += "\n";
    }
    return out;
  }
  out = "series,kind,x_low,x_high,y\n";
  // Labels as the legend writes them, quoted where they hold a comma or a quote (RFC 4180); a
  // line's points say so.
  // An unnamed series of markers over a named line's own points (a dot at each measured K) repeats
  // that line's rows: left out, or the CSV holds each value twice, once under no name.
  auto same = [](const std::vector<double>& a, const std::vector<double>& b) {  // (a NaN gap equals a NaN gap)
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](double p, double q) { return p == q || (std::isnan(p) && std::isnan(q)); });
  };
  auto repeats_a_line = [&](const Series& s) {
    return s.label.empty() && std::any_of(f.series.begin(), f.series.end(), [&](const Series& t) {
             return !t.label.empty() && same(t.x, s.x) && same(t.y, s.y);
           });
  };
  for (const Series& s : f.series) {
    if (repeats_a_line(s)) continue;
    const std::string label = csv_field(s.label);
    const char* kind = s.kind == SeriesKind::Line ? ",line," : ",point,";
    for (size_t i = 0; i < s.y.size(); ++i) {
      if (s.kind == SeriesKind::Bars || s.kind == SeriesKind::Steps) {
        if (i + 1 >= s.x.size()) break;
        out += label + ",bar," + shortest_double(s.x[i]) + "," + shortest_double(s.x[i + 1]) + "," +
               shortest_double(s.y[i]) + "\n";
      } else if (i < s.x.size()) {
        out += label + kind + shortest_double(s.x[i]) + ",," + shortest_double(s.y[i]) + "\n";
      }
    }
  }
  for (const Annotation& a : f.annotations)
    out += csv_field(a.label) + (a.kind == AnnotationKind::VerticalLine ? ",vline," : ",hline,") +
           shortest_double(a.value) + ",,\n";
  return out;
}

ExportOptions& default_export_options() {
  static ExportOptions o;
  return o;
}

Expected<std::string> figure_svg(const Figure& f, const ExportOptions& o) {
  // cairo draws the lines, marks and cells; the text is written as <text> elements.
  std::string svg;
  std::vector<SvgText> texts;
  cairo_surface_t* s = cairo_svg_surface_create_for_stream(append_to_string, &svg, o.width, o.height);
  // Sized in px, as the PNG at 96 dpi (cairo writes pt unless told: 4/3 as large).
  cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PX);
  cairo_t* cr = cairo_create(s);
  g_svg_text = &texts;
  draw_figure(cr, f, o.width, o.height, o.font_scale);
  g_svg_text = nullptr;
  cairo_destroy(cr);
  cairo_surface_finish(s);
  const cairo_status_t st = cairo_surface_status(s);
  cairo_surface_destroy(s);
  if (st != CAIRO_STATUS_SUCCESS) return Error{cairo_status_to_string(st)};
  const size_t end = svg.rfind("</svg>");
  if (end == std::string::npos) return Error{"cairo's SVG has no </svg>"};
  svg.insert(end, svg_text_elements(texts));
  return svg;
}

Status export_figure(const Figure& f, const std::string& path, FileType type, const ExportOptions& o) {
  // Ctrl-C between figures stops the rest: at --size 3000x3000 --dpi 300 a matmul's figures would
  // otherwise take many seconds after it, all drawn, then thrown away with the folder.
  if (interrupt_signal() != 0) return Error{"interrupted: " + path + " was not drawn"};
  if (type == FileType::Csv) {
    return io::write_file_atomic(path, figure_csv(f));
  }
  if (type == FileType::Svg) {
    auto svg = figure_svg(f, o);
    if (!svg) return Error{"cannot draw " + path + ": " + svg.error()};
    return io::write_file_atomic(path, *svg);
  }
  // Read before anything is drawn: a bad SOURCE_DATE_EPOCH is refused without the work.
  const auto date = type == FileType::Pdf ? source_date(std::getenv("SOURCE_DATE_EPOCH"))
                                          : Expected<std::optional<std::string>>(std::optional<std::string>{});
  if (!date) return Error{"cannot write " + path + ": " + date.error()};
  // Encoded in memory, then written whole or not at all: a stopped export or a full disk leaves
  // no half a PNG or PDF under the file's name.
  std::string bytes;
  cairo_surface_t* s = nullptr;
  switch (type) {
    case FileType::Png:
      s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, static_cast<int>(o.width * o.scale),
                                     static_cast<int>(o.height * o.scale));
      break;
    case FileType::Svg: break;  // above
    case FileType::Pdf:
      s = cairo_pdf_surface_create_for_stream(append_to_string, &bytes, o.width * kPointsPerPixel,
                                              o.height * kPointsPerPixel);
      break;
    case FileType::Csv: break;
  }
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(s);
    return Error{"cannot create " + path};
  }
  if (type == FileType::Pdf) stamp_date(s, *date);
  cairo_t* cr = cairo_create(s);
  if (type == FileType::Png) cairo_scale(cr, o.scale, o.scale);
  if (type == FileType::Pdf) cairo_scale(cr, kPointsPerPixel, kPointsPerPixel);
  draw_figure(cr, f, o.width, o.height, o.font_scale);
  cairo_destroy(cr);
  cairo_status_t st = CAIRO_STATUS_SUCCESS;
  if (type == FileType::Png) st = cairo_surface_write_to_png_stream(s, append_to_string, &bytes);
  cairo_surface_finish(s);
  if (st == CAIRO_STATUS_SUCCESS) st = cairo_surface_status(s);
  cairo_surface_destroy(s);
  if (st != CAIRO_STATUS_SUCCESS) return Error{"cannot draw " + path + ": " + cairo_status_to_string(st)};
  if (type == FileType::Pdf) bytes = with_date_prefix(std::move(bytes));
  return io::write_file_atomic(path, bytes);
}

}  // namespace pl::figure
