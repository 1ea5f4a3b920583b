// Standard error through a filter that writes control characters as text: the messages quote
// what the user typed and what files hold (a path, a tensor's name, a scenario's label), and an
// escape sequence among them must not reach the terminal as one. Line breaks, carriage returns
// (the progress line) and tabs pass; every other C0 control, DEL and the C1 controls (U+0080 to
// U+009F in UTF-8; a terminal may read U+009B as CSI) become \xNN or \u00NN.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pl::cli {

// What the filter writes for `text`. `pending_c2` carries a UTF-8 lead byte 0xC2 that ended the
// previous piece (a C1 control can be split across two writes).
std::string escape_controls(std::string_view text, bool* pending_c2);

// Replaces `stderr` with an unbuffered stream that writes escape_controls() of everything to
// file descriptor 2. Once, at the start of the command line's run; false (stderr unchanged)
// where the stream cannot be made.
bool filter_stderr();

// Whether standard error is a terminal (a progress line's question). Asked of file descriptor 2:
// the filtered stream has no descriptor of its own, and isatty(fileno(stderr)) would say no on
// every terminal.
bool stderr_is_terminal();

}  // namespace pl::cli
