// A PDF's creation and modification dates. cairo stamps a PDF with the local time it was written
// as its creation date, so drawing the same figure twice gives two different files; under
// SOURCE_DATE_EPOCH (the reproducible-builds.org convention: seconds since 1970, UTC) both dates
// are that time instead, and a figure drawn again from the same data is the same file, byte for
// byte.
#pragma once

#include <cairo.h>

#include <optional>
#include <string>

#include "core/util/expected.h"

namespace pl::figure {

// The time SOURCE_DATE_EPOCH names, as cairo's ISO 8601 ("2023-11-14T22:13:20Z"); nothing when
// it is unset or empty; an error when it is not a whole number of seconds from 0 to the year 9999.
Expected<std::optional<std::string>> source_date(const char* epoch);

// Both dates of `pdf` (a cairo PDF surface) from source_date()'s text; nothing when empty.
void stamp_date(cairo_surface_t* pdf, const std::optional<std::string>& date);
// Both dates of `pdf` from the environment's SOURCE_DATE_EPOCH, if set.
Status stamp_source_date(cairo_surface_t* pdf);

// A PDF as cairo wrote it, with "D:" before its document information's dates where cairo 1.16
// leaves it out ("/CreationDate (20231114221320Z)"): ISO 32000-1 (7.9.4) requires the prefix, and
// readers such as LibreOffice's read no date without it. The cross-reference table's offsets
// past each insertion and startxref move to match. A PDF whose dates have it already, or whose
// trailer, table or information dictionary this does not find as cairo writes them, is returned
// as it is.
std::string with_date_prefix(std::string pdf);

}  // namespace pl::figure
