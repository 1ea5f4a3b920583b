#include "core/export/pdf_dates.h"

#include <cairo-pdf.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <string_view>
#include <vector>

namespace pl::figure {

Expected<std::optional<std::string>> source_date(const char* epoch) {
  if (epoch == nullptr || *epoch == '\0') return std::optional<std::string>{};
  const std::string_view text(epoch);
  long long seconds = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  constexpr long long kYear10000 = 253402300800LL;  // 10000-01-01T00:00:00Z
  if (ec != std::errc{} || end != text.data() + text.size() || seconds < 0 || seconds >= kYear10000)
    return Error{"SOURCE_DATE_EPOCH is '" + std::string(text) +
                 "', not a whole number of seconds since 1970-01-01 (UTC) before the year 10000"};
  const auto t = static_cast<std::time_t>(seconds);
  std::tm utc{};
  char iso[32];
  if (gmtime_r(&t, &utc) == nullptr || std::strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &utc) == 0)
    return Error{"SOURCE_DATE_EPOCH " + std::string(text) + " is not a date this system can write"};
  return std::optional<std::string>{iso};
}

void stamp_date(cairo_surface_t* pdf, const std::optional<std::string>& date) {
  if (!date) return;
  cairo_pdf_surface_set_metadata(pdf, CAIRO_PDF_METADATA_CREATE_DATE, date->c_str());
  cairo_pdf_surface_set_metadata(pdf, CAIRO_PDF_METADATA_MOD_DATE, date->c_str());
}

Status stamp_source_date(cairo_surface_t* pdf) {
  const auto date = source_date(std::getenv("SOURCE_DATE_EPOCH"));
  if (!date) return Error{date.error()};
  stamp_date(pdf, *date);
  return {};
}

namespace {

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r'; }

// The whole number at `at` (digits only), and where it ends; nothing when there is none.
std::optional<std::pair<uint64_t, size_t>> number_at(std::string_view s, size_t at) {
  if (at >= s.size() || s[at] < '0' || s[at] > '9') return std::nullopt;
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(s.data() + at, s.data() + s.size(), n);
  if (ec != std::errc{}) return std::nullopt;
  return std::pair{n, static_cast<size_t>(end - s.data())};
}

size_t skip_space(std::string_view s, size_t at) {
  while (at < s.size() && is_space(s[at])) ++at;
  return at;
}

}  // namespace

std::string with_date_prefix(std::string pdf) {
  const std::string_view s = pdf;
  // The table's place: "startxref N" at the end.
  const size_t startxref = s.rfind("startxref");
  if (startxref == std::string_view::npos) return pdf;
  const auto table = number_at(s, skip_space(s, startxref + 9));
  if (!table || table->first >= s.size() || s.substr(table->first, 4) != "xref") return pdf;
  const size_t xref = table->first;
  // The trailer's information dictionary, "/Info N 0 R".
  const size_t trailer = s.find("trailer", xref), info_key = s.find("/Info", trailer);
  if (trailer == std::string_view::npos || info_key == std::string_view::npos) return pdf;
  // A hybrid file's second table (a cross-reference stream) would keep offsets this leaves.
  if (s.find("/XRefStm", trailer) != std::string_view::npos) return pdf;
  const auto info = number_at(s, skip_space(s, info_key + 5));
  if (!info) return pdf;
  // The table's entries: subsections of "FIRST COUNT", then COUNT entries of 20 bytes whose
  // first 10 are the object's offset.
  struct Entry {
    size_t at;        // where its 10 digits are
    uint64_t offset;  // of an object in use ('n')
  };
  std::vector<Entry> entries;
  std::optional<uint64_t> info_offset;
  size_t at = skip_space(s, xref + 4);
  while (at < trailer) {
    const auto first = number_at(s, at);
    if (!first) return pdf;
    const auto count = number_at(s, skip_space(s, first->second));
    if (!count) return pdf;
    at = skip_space(s, count->second);
    for (uint64_t i = 0; i < count->first; ++i, at += 20) {
      if (at + 20 > trailer || (s[at + 17] != 'n' && s[at + 17] != 'f')) return pdf;
      if (s[at + 17] != 'n') continue;
      const auto offset = number_at(s, at);
      if (!offset || offset->second != at + 10) return pdf;
      entries.push_back({at, offset->first});
      if (first->first + i == info->first) info_offset = offset->first;
    }
    at = skip_space(s, at);
  }
  if (!info_offset || *info_offset >= xref) return pdf;
  // The table's entry must lead to the dictionary's object ("20 0 obj").
  if (const std::string obj = std::to_string(info->first) + " 0 obj"; s.substr(*info_offset, obj.size()) != obj)
    return pdf;
  // The dates within the dictionary's object that lack the prefix.
  const size_t end = s.find("endobj", *info_offset);
  if (end == std::string_view::npos || end > xref) return pdf;
  std::vector<size_t> insert;  // where "D:" goes, in order
  for (std::string_view key : {"/CreationDate (", "/ModDate ("}) {
    const size_t k = s.substr(0, end).find(key, *info_offset);
    if (k != std::string_view::npos && s.substr(k + key.size(), 2) != "D:") insert.push_back(k + key.size());
  }
  if (insert.empty()) return pdf;
  std::sort(insert.begin(), insert.end());
  auto moved = [&](uint64_t offset) {
    return offset + 2 * static_cast<uint64_t>(std::lower_bound(insert.begin(), insert.end(), offset) - insert.begin());
  };
  std::string out = pdf;
  // The entries keep their ten digits; startxref's number, last in the file, may grow a digit.
  for (const Entry& e : entries) {
    const std::string digits = std::to_string(moved(e.offset));
    if (digits.size() > 10) return pdf;
    out.replace(e.at, 10, std::string(10 - digits.size(), '0') + digits);
  }
  const size_t n_at = skip_space(s, startxref + 9);
  out.replace(n_at, table->second - n_at, std::to_string(moved(xref)));
  for (auto i = insert.rbegin(); i != insert.rend(); ++i) out.insert(*i, "D:");
  return out;
}

}  // namespace pl::figure
