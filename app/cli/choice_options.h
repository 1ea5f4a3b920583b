// Options whose value is one of a core table's names: the help lists the table and the parser
// refuses any other name (exit 2), so no command retypes a list. --backend hands the command
// the value (core/backend/backend_choice.h), never the text.
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

// --rounding: rounding_names(). --path: cast_path_names(). --int-overflow: int_overflow_names().
CLI::Option* add_rounding_option(CLI::App& command, std::string* out, const std::string& help);
CLI::Option* add_cast_path_option(CLI::App& command, std::string* out, const std::string& help);
CLI::Option* add_int_overflow_option(CLI::App& command, std::string* out, const std::string& help);

}  // namespace pl::cli
