// Where an experiment asks to run: the CPU, the CUDA backend, or whichever opens ("auto":
// CUDA when a GPU and driver are there, else the CPU). Parsed once where a person or a file
// names it; everything past that edge passes the value, not its spelling.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace pl {

enum class BackendChoice { Cpu, Cuda, Auto };

// The spellings, in the enum's order: the CLI's --backend, the files' "backend", the picker.
inline constexpr std::array<std::string_view, 3> kBackendChoiceNames = {"cpu", "cuda", "auto"};

std::string_view backend_choice_name(BackendChoice c);
std::optional<BackendChoice> parse_backend_choice(std::string_view name);
// "cpu, cuda or auto": for help texts and errors.
std::string backend_choice_names();

}  // namespace pl
