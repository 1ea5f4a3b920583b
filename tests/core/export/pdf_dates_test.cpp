// A PDF drawn twice from the same figure or slides under SOURCE_DATE_EPOCH is the same file,
// dated by it; a SOURCE_DATE_EPOCH that is not a number of seconds is an error, and leaves no
// file behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "core/export/figure_export.h"
#include "core/export/pdf_dates.h"
#include "core/export/slide_deck.h"
#include "core/figure/figure.h"

namespace pl::figure {
namespace {

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The environment variable set for one scope, and put back as it was.
class SourceDateEpoch {
 public:
  explicit SourceDateEpoch(const char* value) {
    if (const char* old = std::getenv("SOURCE_DATE_EPOCH")) old_.assign(old, old + std::strlen(old) + 1);
    if (value) setenv("SOURCE_DATE_EPOCH", value, 1);
    else unsetenv("SOURCE_DATE_EPOCH");
  }
  ~SourceDateEpoch() {
    if (!old_.empty()) setenv("SOURCE_DATE_EPOCH", old_.data(), 1);
    else unsetenv("SOURCE_DATE_EPOCH");
  }

 private:
  std::vector<char> old_;  // with its terminating zero; empty: unset
};

// A date of a PDF's document information, without the "D:" the PDF reference calls optional
// (cairo 1.16 writes none).
std::string date_of(const std::string& pdf, const std::string& key) {
  size_t at = pdf.find(key + " (");
  if (at == std::string::npos) return "";
  at += key.size() + 2;
  if (pdf.compare(at, 2, "D:") == 0) at += 2;
  const size_t end = pdf.find(')', at);
  return end == std::string::npos ? "" : pdf.substr(at, end - at);
}

Figure small_figure() {
  Figure f;
  f.name = "line";
  f.title = "A line";
  f.x.label = "the value";
  f.y.label = "the same value";
  Series s;
  s.label = "y = x";
  s.x = {1, 2, 3};
  s.y = {1, 2, 3};
  f.series.push_back(s);
  return f;
}

TEST(PdfDates, ReadsSecondsSince1970AsAnIsoDate) {
  EXPECT_EQ(*source_date("1700000000"), "2023-11-14T22:13:20Z");
  EXPECT_EQ(*source_date("0"), "1970-01-01T00:00:00Z");
  EXPECT_FALSE(*source_date(nullptr));
  EXPECT_FALSE(*source_date(""));
  for (const char* bad : {"-1", "17e8", "1700000000 ", "yesterday", "253402300800", "99999999999999999999"})
    EXPECT_FALSE(source_date(bad)) << bad;
  EXPECT_NE(source_date("soon").error().find("SOURCE_DATE_EPOCH is 'soon'"), std::string::npos);
}

TEST(PdfDates, AFigureDrawnTwiceUnderSourceDateEpochIsTheSameFile) {
  const auto dir = std::filesystem::temp_directory_path() / "pl_pdf_dates_test";
  std::filesystem::create_directories(dir);
  const Figure f = small_figure();
  {
    const SourceDateEpoch epoch("1700000000");
    ASSERT_TRUE(export_figure(f, (dir / "a.pdf").string(), FileType::Pdf));
    ASSERT_TRUE(export_figure(f, (dir / "b.pdf").string(), FileType::Pdf));
  }
  const std::string a = slurp(dir / "a.pdf");
  EXPECT_EQ(a, slurp(dir / "b.pdf"));
  EXPECT_EQ(date_of(a, "/CreationDate"), "20231114221320Z");
  EXPECT_EQ(date_of(a, "/ModDate"), "20231114221320Z");
  {
    const SourceDateEpoch unset(nullptr);  // cairo's own stamp: now
    ASSERT_TRUE(export_figure(f, (dir / "c.pdf").string(), FileType::Pdf));
  }
  // (cairo's own stamp is the local time, with the zone's offset after its 14 digits)
  const std::string now = date_of(slurp(dir / "c.pdf"), "/CreationDate");
  ASSERT_GE(now.size(), 14u) << now;
  EXPECT_TRUE(std::all_of(now.begin(), now.begin() + 14, [](char c) { return c >= '0' && c <= '9'; })) << now;
  EXPECT_NE(now.substr(0, 14), "20231114221320");
  std::filesystem::remove_all(dir);
}

TEST(PdfDates, ASlideDeckWrittenTwiceUnderSourceDateEpochIsTheSameFile) {
  const auto dir = std::filesystem::temp_directory_path() / "pl_pdf_dates_deck_test";
  std::filesystem::create_directories(dir);
  exporting::SlideDeck deck;
  deck.title = "A deck";
  exporting::Slide story, drawn;
  story.title = "The story";
  story.paragraphs = {"One paragraph."};
  drawn.title = "The figure";
  drawn.figure = small_figure();
  deck.slides = {story, drawn};
  {
    const SourceDateEpoch epoch("1700000000");
    ASSERT_TRUE(exporting::write_deck_pdf(deck, (dir / "a.pdf").string()));
    ASSERT_TRUE(exporting::write_deck_pdf(deck, (dir / "b.pdf").string()));
  }
  const std::string a = slurp(dir / "a.pdf");
  EXPECT_EQ(a, slurp(dir / "b.pdf"));
  EXPECT_EQ(date_of(a, "/CreationDate"), "20231114221320Z");
  {
    const SourceDateEpoch epoch("1.5");
    const Status s = exporting::write_deck_pdf(deck, (dir / "c.pdf").string());
    EXPECT_FALSE(s);
    EXPECT_FALSE(std::filesystem::exists(dir / "c.pdf"));
  }
  std::filesystem::remove_all(dir);
}

TEST(PdfDates, ABadSourceDateEpochIsAnErrorAndWritesNothing) {
  const auto dir = std::filesystem::temp_directory_path() / "pl_pdf_dates_bad_test";
  std::filesystem::create_directories(dir);
  const SourceDateEpoch epoch("tomorrow");
  const auto path = dir / "a.pdf";
  const Status s = export_figure(small_figure(), path.string(), FileType::Pdf);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find("SOURCE_DATE_EPOCH is 'tomorrow'"), std::string::npos) << s.error();
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(export_figure(small_figure(), (dir / "a.png").string(), FileType::Png));  // (only a PDF has dates)
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pl::figure
