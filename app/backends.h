// Registers the backends this binary was built with. The only place that knows whether
// CUDA was compiled in (ggml's habit: the #ifdef lives in the registry, nowhere else).
#pragma once

namespace pl {
void register_compiled_backends();
}
