#include "core/export/pdf_dates.h"

#include <cairo-pdf.h>

#include <charconv>
#include <cstdlib>
#include <ctime>
#include <string_view>

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

}  // namespace pl::figure
