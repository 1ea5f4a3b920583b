#include "core/export/slide_deck.h"

#include <cairo-pdf.h>
#include <cairo.h>

#include <algorithm>

#include "core/export/cairo_memory.h"
#include "core/export/figure_export.h"
#include "core/export/pdf_dates.h"
#include "core/io/checked_write.h"
#include "core/util/markup_escape.h"

namespace pl::exporting {
namespace {

constexpr double kMargin = 56, kTitleSize = 30, kTextSize = 20, kCellSize = 16, kLine = 1.35;
// A figure's text on a slide: ticks at 17 points, readable from the back of a room.
constexpr double kSlideFigureTextScale = 1.7;

void font(cairo_t* cr, double size, bool bold = false) {
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

double text_width(cairo_t* cr, const std::string& s) {
  cairo_text_extents_t e;
  cairo_text_extents(cr, s.c_str(), &e);
  return e.x_advance;
}

// `text` broken at spaces into lines no wider than `width` in the current font (a word wider
// than the line stands alone).
std::vector<std::string> wrapped(cairo_t* cr, const std::string& text, double width) {
  std::vector<std::string> lines;
  std::string line, word;
  auto flush_word = [&] {
    if (word.empty()) return;
    const std::string longer = line.empty() ? word : line + " " + word;
    if (!line.empty() && text_width(cr, longer) > width) {
      lines.push_back(line);
      line = word;
    } else {
      line = longer;
    }
    word.clear();
  };
  for (char c : text) {
    if (c == ' ' || c == '\n') {
      flush_word();
      if (c == '\n') lines.push_back(line), line.clear();
    } else {
      word += c;
    }
  }
  flush_word();
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// Draws `lines` from baseline `y` down; returns the y below them.
double draw_lines(cairo_t* cr, const std::vector<std::string>& lines, double x, double y, double size) {
  for (const std::string& l : lines) {
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, l.c_str());
    y += size * kLine;
  }
  return y;
}

double draw_title(cairo_t* cr, const std::string& title) {
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  font(cr, kTitleSize, true);
  return draw_lines(cr, wrapped(cr, title, kSlideWidth - 2 * kMargin), kMargin, kMargin + kTitleSize, kTitleSize) +
         kTextSize * 0.5;
}

// The table from row `first` on, as many rows as fit below `top`; returns the row after the last drawn.
size_t draw_table(cairo_t* cr, const std::vector<std::vector<std::string>>& t, size_t first, double top) {
  const size_t cols = t.front().size();
  const double width = kSlideWidth - 2 * kMargin, pad = 6;
  // Columns share the width by their longest text, none under a tenth of it.
  std::vector<double> want(cols, 0);
  font(cr, kCellSize);
  for (const auto& row : t)
    for (size_t c = 0; c < cols && c < row.size(); ++c) want[c] = std::max(want[c], text_width(cr, row[c]) + 2 * pad);
  double total = 0;
  for (double& w : want) total += (w = std::max(w, width / 10));
  std::vector<double> col_w(cols);
  for (size_t c = 0; c < cols; ++c) col_w[c] = want[c] * std::min(1.0, width / total);
  auto row_lines = [&](const std::vector<std::string>& row, bool header) {
    font(cr, kCellSize, header);
    std::vector<std::vector<std::string>> cells(cols);
    size_t n = 1;
    for (size_t c = 0; c < cols && c < row.size(); ++c) {
      cells[c] = wrapped(cr, row[c], col_w[c] - 2 * pad);
      n = std::max(n, cells[c].size());
    }
    return std::pair{cells, n};
  };
  auto draw_row = [&](const std::vector<std::string>& row, bool header, double y) {
    auto [cells, n] = row_lines(row, header);
    const double h = static_cast<double>(n) * kCellSize * kLine + 2 * pad;
    if (header) {
      cairo_set_source_rgb(cr, 0.92, 0.92, 0.92);
      cairo_rectangle(cr, kMargin, y, width, h);
      cairo_fill(cr);
    }
    double x = kMargin;
    for (size_t c = 0; c < cols; ++c) {
      const bool fail = !header && c + 1 == cols && c < row.size() && row[c].rfind("FAIL", 0) == 0;
      fail ? cairo_set_source_rgb(cr, 0.75, 0.1, 0.1) : cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
      font(cr, kCellSize, header);
      draw_lines(cr, cells[c], x + pad, y + pad + kCellSize, kCellSize);
      x += col_w[c];
    }
    cairo_set_source_rgb(cr, 0.75, 0.75, 0.75);
    cairo_move_to(cr, kMargin, y + h);
    cairo_line_to(cr, kMargin + width, y + h);
    cairo_stroke(cr);
    return y + h;
  };
  double y = draw_row(t.front(), true, top);
  size_t r = first;
  for (; r < t.size(); ++r) {
    const double h = static_cast<double>(row_lines(t[r], false).second) * kCellSize * kLine + 12;
    if (y + h > kSlideHeight - kMargin / 2 && r > first) break;  // the next page goes on
    y = draw_row(t[r], false, y);
  }
  return r;
}

// Each inlined SVG's ids made its own: cairo names every figure's clip paths and glyphs alike
// ("clip1"), and one page holds them all.
std::string with_id_prefix(std::string svg, const std::string& prefix) {
  for (const std::string& from : {std::string("id=\""), std::string("url(#"), std::string("href=\"#")}) {
    const std::string to = from + prefix;
    for (size_t at = svg.find(from); at != std::string::npos; at = svg.find(from, at + to.size()))
      svg.replace(at, from.size(), to);
  }
  return svg;
}

}  // namespace

Status write_deck_pdf(const SlideDeck& deck, const std::string& path) {
  std::string pdf;
  cairo_surface_t* s = cairo_pdf_surface_create_for_stream(figure::append_to_string, &pdf, kSlideWidth, kSlideHeight);
  cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_TITLE, deck.title.c_str());
  if (Status dated = figure::stamp_source_date(s); !dated) {
    cairo_surface_destroy(s);
    return Error{"cannot write " + path + ": " + dated.error()};
  }
  cairo_t* cr = cairo_create(s);
  for (const Slide& slide : deck.slides) {
    size_t row = 1;
    do {  // a long table takes more pages
      cairo_set_source_rgb(cr, 1, 1, 1);
      cairo_paint(cr);
      double y = draw_title(cr, row > 1 ? slide.title + " (continued)" : slide.title);
      if (row == 1) {
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        font(cr, kTextSize);
        for (const std::string& p : slide.paragraphs)
          y = draw_lines(cr, wrapped(cr, p, kSlideWidth - 2 * kMargin), kMargin, y + kTextSize, kTextSize);
        if (slide.figure) {
          const double top = y + 4, h = kSlideHeight - top - kMargin / 2, w = kSlideWidth - 2 * kMargin;
          cairo_save(cr);
          cairo_translate(cr, kMargin, top);
          cairo_rectangle(cr, 0, 0, w, h);  // the figure paints its background: within its box
          cairo_clip(cr);
          figure::draw_figure(cr, *slide.figure, w, h, kSlideFigureTextScale);
          cairo_restore(cr);
        }
      }
      if (slide.table.size() > 1) row = draw_table(cr, slide.table, row, y + 8);
      cairo_show_page(cr);
    } while (slide.table.size() > 1 && row < slide.table.size());
  }
  cairo_destroy(cr);
  cairo_surface_finish(s);
  const cairo_status_t st = cairo_surface_status(s);
  cairo_surface_destroy(s);
  if (st != CAIRO_STATUS_SUCCESS) return Error{"cannot draw " + path + ": " + cairo_status_to_string(st)};
  return io::write_file_atomic(path, figure::with_date_prefix(std::move(pdf)));
}

Expected<std::string> deck_html(const SlideDeck& deck) {
  int figures = 0;
  // Built by appending: GCC 12 warns falsely on chains of + with literals (-Wrestrict, bug 105329).
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>";
  h.append(markup_escaped(deck.title))
      .append(
          "</title>\n<style>\n"
          "body{font-family:'DejaVu Sans',sans-serif;margin:0;background:#444}\n"
          "section{background:#fff;width:1280px;min-height:720px;margin:24px auto;padding:40px 56px;"
          "box-sizing:border-box}\n"
          "h1{font-size:30px;margin:0 0 16px} p{font-size:20px;line-height:1.35}\n"
          "table{border-collapse:collapse;width:100%;font-size:15px} th{background:#eee}\n"
          "th,td{text-align:left;padding:6px;border-bottom:1px solid #bbb;vertical-align:top}\n"
          ".fail{color:#b00}\n"
          "svg{width:100%;height:auto}\n"
          "</style></head><body>\n");
  for (const Slide& slide : deck.slides) {
    h.append("<section>\n<h1>").append(markup_escaped(slide.title)).append("</h1>\n");
    for (const std::string& p : slide.paragraphs) h.append("<p>").append(markup_escaped(p)).append("</p>\n");
    if (slide.figure) {
      figure::ExportOptions o;
      o.width = kSlideWidth - 2 * kMargin;
      o.height = 560;
      auto svg = figure::figure_svg(*slide.figure, o);
      if (!svg) return Error{svg.error()};
      const size_t start = svg->find("<svg");  // inline: the XML declaration stays out
      std::string prefix = "f";
      prefix.append(std::to_string(++figures)).append("-");
      h.append(with_id_prefix(svg->substr(start == std::string::npos ? 0 : start), prefix)).append("\n");
    }
    if (slide.table.size() > 1) {
      h.append("<table>\n<tr>");
      for (const std::string& c : slide.table.front()) h.append("<th>").append(markup_escaped(c)).append("</th>");
      h.append("</tr>\n");
      for (size_t r = 1; r < slide.table.size(); ++r) {
        h.append("<tr>");
        const auto& row = slide.table[r];
        for (size_t c = 0; c < row.size(); ++c)
          h.append(c + 1 == row.size() && row[c].rfind("FAIL", 0) == 0 ? "<td class=\"fail\">" : "<td>")
              .append(markup_escaped(row[c]))
              .append("</td>");
        h.append("</tr>\n");
      }
      h.append("</table>\n");
    }
    h.append("</section>\n");
  }
  h.append("</body></html>\n");
  return h;
}

}  // namespace pl::exporting
