// A PDF drawn twice from the same figure or slides under SOURCE_DATE_EPOCH is the same file,
// dated by it; a SOURCE_DATE_EPOCH that is not a number of seconds is an error, and leaves no
// file behind. The dates carry the "D:" ISO 32000-1 asks for, with the cross-reference table
// moved to match, and an exported figure is written whole.
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

// A date of a PDF's document information after the "D:" ISO 32000-1 requires (cairo 1.16 writes
// none; with_date_prefix puts it in); "no D:" where it is missing.
std::string date_of(const std::string& pdf, const std::string& key) {
  size_t at = pdf.find(key + " (");
  if (at == std::string::npos) return "";
  at += key.size() + 2;
  if (pdf.compare(at, 2, "D:") != 0) return "no D:";
  at += 2;
  const size_t end = pdf.find(')', at);
  return end == std::string::npos ? "" : pdf.substr(at, end - at);
}

// Every object the cross-reference table says is in use starts where its entry says ("N 0 obj"),
// and startxref names the table: what a reader follows to find the objects.
void expect_table_true(const std::string& pdf) {
  const size_t sx = pdf.rfind("startxref");
  ASSERT_NE(sx, std::string::npos);
  const size_t xref = std::stoull(pdf.substr(sx + 10));
  ASSERT_EQ(pdf.compare(xref, 4, "xref"), 0) << "startxref " << xref;
  std::istringstream table(pdf.substr(xref + 4));
  size_t checked = 0;
  for (std::string first; table >> first && first != "trailer";) {  // each subsection
    size_t count = 0;
    table >> count;
    for (size_t i = 0; i < count; ++i) {
      std::string offset, generation, use;
      table >> offset >> generation >> use;
      if (use != "n") continue;
      const std::string obj = std::to_string(std::stoull(first) + i) + " 0 obj";
      const size_t at = std::stoull(offset);
      ASSERT_LT(at, pdf.size()) << obj;
      EXPECT_EQ(pdf.compare(at, obj.size(), obj), 0) << obj << " at " << offset;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
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
  expect_table_true(a);
  {
    const SourceDateEpoch unset(nullptr);  // cairo's own stamp: now
    ASSERT_TRUE(export_figure(f, (dir / "c.pdf").string(), FileType::Pdf));
  }
  // (cairo's own stamp is the local time, with the zone's offset after its 14 digits)
  const std::string c = slurp(dir / "c.pdf");
  expect_table_true(c);
  const std::string now = date_of(c, "/CreationDate");
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
  expect_table_true(a);
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

// A PDF built as cairo 1.16 writes one: the information dictionary's dates without "D:", an
// object after it, the table and the trailer. `eol` ends each table entry (" \n" or "\r\n",
// two bytes either way); `split` writes the table as two subsections.
std::string cairo_like_pdf(const std::string& date, const char* eol = " \n", bool split = false) {
  std::string pdf = "%PDF-1.5\n";
  std::vector<size_t> at;
  at.push_back(pdf.size());
  pdf += "1 0 obj\n<< /Type /Pages /Kids [ ] /Count 0 >>\nendobj\n";
  at.push_back(pdf.size());
  pdf += "2 0 obj\n<< /Producer (cairo)\n   /CreationDate (" + date + ")\n   /ModDate (" + date + ")\n>>\nendobj\n";
  at.push_back(pdf.size());
  pdf += "3 0 obj\n<< /Type /Catalog /Pages 1 0 R >>\nendobj\n";
  const size_t xref = pdf.size();
  pdf += std::string("xref\n") + (split ? "0 1\n" : "0 4\n") + "0000000000 65535 f" + eol;
  if (split) pdf += "1 3\n";
  for (size_t a : at) {
    char entry[32];
    std::snprintf(entry, sizeof entry, "%010zu 00000 n%s", a, eol);
    pdf += entry;
  }
  pdf += "trailer\n<< /Size 4\n   /Root 3 0 R\n   /Info 2 0 R\n>>\nstartxref\n" + std::to_string(xref) + "\n%%EOF\n";
  return pdf;
}

// cairo 1.16 writes "/CreationDate (20231114221320Z)"; ISO 32000-1 requires "D:" before the
// date, and LibreOffice's reader takes a date without it for none. The prefix goes in, and the
// objects after it and the table are found where the table says.
TEST(PdfDates, PutsTheDatePrefixInAndMovesTheTable) {
  const std::string before = cairo_like_pdf("20231114221320Z");
  expect_table_true(before);
  EXPECT_EQ(date_of(before, "/CreationDate"), "no D:");
  const std::string after = with_date_prefix(before);
  EXPECT_EQ(after.size(), before.size() + 4);
  EXPECT_EQ(date_of(after, "/CreationDate"), "20231114221320Z");
  EXPECT_EQ(date_of(after, "/ModDate"), "20231114221320Z");
  expect_table_true(after);
  // Dates that have it, and what is not a PDF as cairo writes one, are left as they are.
  EXPECT_EQ(with_date_prefix(after), after);
  const std::string prefixed = cairo_like_pdf("D:20231114221320Z");
  EXPECT_EQ(with_date_prefix(prefixed), prefixed);
  for (const std::string& odd : {std::string(), std::string("not a pdf"), before.substr(0, before.size() / 2),
                                 std::string("startxref\n99999\n")})
    EXPECT_EQ(with_date_prefix(odd), odd);
}

// Tables as a PDF may hold them: entries ending in CR LF, two subsections.
TEST(PdfDates, ReadsTheTableInItsForms) {
  for (const auto& [eol, split] : {std::pair{" \n", true}, std::pair{"\r\n", false}, std::pair{"\r\n", true}}) {
    const std::string after = with_date_prefix(cairo_like_pdf("20231114221320Z", eol, split));
    EXPECT_EQ(date_of(after, "/CreationDate"), "20231114221320Z") << split;
    expect_table_true(after);
  }
}

// A table this does not read as cairo writes it leaves the PDF as it is: an information
// dictionary's entry marked free, or leading elsewhere than its object, a table shorter than its
// count, a hybrid file's second table. Every prefix of a PDF and every byte of it changed are
// read without reading past the text (the sanitizers' builds run this).
TEST(PdfDates, LeavesWhatItDoesNotReadAlone) {
  const std::string before = cairo_like_pdf("20231114221320Z");
  auto changed = [&](const std::string& from, const std::string& to) {
    std::string pdf = before;
    const size_t at = pdf.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return pdf.replace(at, from.size(), to);
  };
  const std::string info_entry = before.substr(before.find("xref\n") + 5 + 4 + 20 * 2, 20);  // object 2's
  char moved_into_it[11];  // a few bytes into object 2: not where "2 0 obj" starts
  std::snprintf(moved_into_it, sizeof moved_into_it, "%010zu", before.find("2 0 obj") + 4);
  for (const std::string& odd :
       {changed(info_entry, info_entry.substr(0, 17) + "f \n"),                        // marked free
        changed(info_entry, moved_into_it + info_entry.substr(10)),                    // into it
        changed("xref\n0 4", "xref\n0 9"),                                             // too few entries
        changed("/Info 2 0 R", "/Info 2 0 R /XRefStm 5"), changed("/Info", "/Infx")})  // hybrid; no /Info
    EXPECT_EQ(with_date_prefix(odd), odd);
  for (size_t n = 0; n < before.size(); ++n) with_date_prefix(before.substr(0, n));
  for (size_t i = 0; i < before.size(); ++i) {
    std::string flipped = before;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
    with_date_prefix(flipped);
  }
}

// A PDF or PNG export is drawn in memory and written whole, by a new file renamed onto the
// path: a reader never sees part of it, and a symbolic link at the path is replaced (written
// through, it would overwrite the file it names). Into a folder that does not exist the export
// fails, names the file, and leaves nothing.
TEST(PdfDates, AnExportIsWrittenWholeByANewFile) {
  const auto dir = std::filesystem::temp_directory_path() / "pl_pdf_dates_whole";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (FileType type : {FileType::Pdf, FileType::Png}) {
    const auto kept = dir / "kept.txt", link = dir / "figure";
    { std::ofstream(kept) << "not to be written over"; }
    std::filesystem::remove(link);
    std::filesystem::create_symlink(kept, link);
    ASSERT_TRUE(export_figure(small_figure(), link.string(), type));
    EXPECT_EQ(slurp(kept), "not to be written over");
    EXPECT_FALSE(std::filesystem::is_symlink(link));
    EXPECT_GT(std::filesystem::file_size(link), 100u);
    const std::string missing = (dir / "no-such-folder" / "f").string();
    const Status s = export_figure(small_figure(), missing, type);
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().find(missing), std::string::npos) << s.error();
    EXPECT_FALSE(std::filesystem::exists(dir / "no-such-folder"));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pl::figure
