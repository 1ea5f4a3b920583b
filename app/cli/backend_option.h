// --backend for every command that computes, read through the one table of spellings
// (core/backend/backend_choice.h): a name outside it is refused by the parser (exit 2), and
// the command gets the value, never the text.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "core/backend/backend_choice.h"

namespace pl::cli {

// `help` follows the list of names ("cpu | cuda | auto: <help>").
CLI::Option* add_backend_option(CLI::App& command, BackendChoice* out, const std::string& help);
// Left empty when the option is not given (a file's own "backend" then stands).
CLI::Option* add_backend_option(CLI::App& command, std::optional<BackendChoice>* out, const std::string& help);

}  // namespace pl::cli
