// Slides from results: a title and paragraphs, a figure drawn full page, or a table; written
// as one multi-page PDF (16:9 pages, text selectable) and as a self-contained HTML page (figures
// inlined as SVG with their text as text, no file or network it needs). A scenario's export
// makes one (core/scenario/scenario_export.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/figure/figure.h"
#include "core/util/expected.h"

namespace pl::exporting {

struct Slide {
  std::string title;
  std::vector<std::string> paragraphs;          // text, wrapped to the page
  std::optional<figure::Figure> figure;         // drawn to fill the page below the title
  std::vector<std::vector<std::string>> table;  // first row: the headers; the last column may say pass/FAIL
};

struct SlideDeck {
  std::string title;  // the HTML page's
  std::vector<Slide> slides;
};

inline constexpr double kSlideWidth = 1280, kSlideHeight = 720;  // points

// A slide whose table does not fit continues on the next page, its headers repeated.
Status write_deck_pdf(const SlideDeck& deck, const std::string& path);
Expected<std::string> deck_html(const SlideDeck& deck);

}  // namespace pl::exporting
