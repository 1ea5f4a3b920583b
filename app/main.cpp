// precision-lab: a command runs the command line; no command (or window options only) opens the
// window. One parser reads both (app/cli/cli.cpp), so `precision-lab --help` lists both.
#include "app/backends.h"
#include "app/cli/cli.h"
#include "app/ui/shell/gui.h"
#include "core/accumulate/blas.h"
#include "core/util/allocator.h"

int main(int argc, char** argv) {
  pl::keep_freed_memory();
  pl::blas::quiet_idle_workers();
  pl::register_compiled_backends();
  return pl::cli::run(argc, argv, [](const pl::ui::GuiOptions& o) { return pl::ui::run_gui(o); });
}
