// Files dropped on the window (GLFW's drop callback), queued until the frame loop takes them.
// GLFW calls the callback from glfwPollEvents, on the UI thread, so the queue needs no lock.
#pragma once

#include <string>
#include <vector>

#include "core/util/expected.h"

struct GLFWwindow;

namespace pl::ui {

void install_file_drop(GLFWwindow* window);
std::vector<std::string> take_dropped_files();

// What a dropped file is for, by its name: an experiment file to open, a tensor to run on, a
// checkpoint to scan (a sharded checkpoint's index, or a folder), or none of them. A single
// .safetensors file is a whole small model to the Checkpoint panel and an operand's file to the
// others: it goes to the Checkpoint panel when that one is on screen.
enum class DropKind { Setup, Tensor, Checkpoint, Unknown };
DropKind drop_kind(const std::string& path, bool checkpoint_shown = false);
// Why a Tensor drop cannot be an operand, from its header alone (the data is read by the run): a
// .npy whose header or size is wrong, a .safetensors whose header is. Nothing where it can.
Status tensor_drop_problem(const std::string& path);

}  // namespace pl::ui
