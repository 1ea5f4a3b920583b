// The window front end. Without a display it says so and how to get one.
#pragma once

#include "app/window_options.h"

namespace pl::ui {

int run_gui(const GuiOptions& o);

}  // namespace pl::ui
