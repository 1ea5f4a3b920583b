#!/usr/bin/env python3
"""The module graph is the include graph.

core/CMakeLists.txt declares each core module's libraries (pl_module ... DEPENDS ...) and passes
the declared graph here as "module:dep,dep|module:...". Every `#include "core/<m>/..."` in a
module's files must name the module itself or one it links, directly or through another; the
CUDA backend (kernels/) may include only what pl_backend links; core includes no GUI, GL or CUDA
header. A violation prints the file, the line and the edge, and fails.

Usage: layering_test.py SOURCE_DIR GRAPH
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)
FOREIGN = re.compile(r'^(imgui|GLFW/|glad/|GL/|EGL/|cuda|cublas|cuda_runtime|nvml)')


def closure(graph, module):
    seen, todo = {module}, [module]
    while todo:
        for dep in graph.get(todo.pop(), ()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def main():
    root = pathlib.Path(sys.argv[1])
    graph = {}
    for entry in filter(None, sys.argv[2].split("|")):
        name, _, deps = entry.partition(":")
        graph[name] = [d for d in deps.split(",") if d]
    if not graph:
        print("layering_test: empty module graph")
        return 1
    problems = []

    def check(path, allowed, what):
        text = path.read_text(encoding="utf-8")
        for m in INCLUDE.finditer(text):
            inc = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            where = f"{path.relative_to(root)}:{line}"
            if FOREIGN.match(inc) and what.startswith("core"):
                problems.append(f"{where}: {what} includes <{inc}>: core has no GUI, GL or CUDA")
            parts = inc.split("/")
            if parts[0] == "core" and len(parts) > 2 and parts[1] not in allowed:
                problems.append(f"{where}: {what} includes {inc}, but {parts[1]} is not below it")
            if parts[0] in ("app", "kernels") and what.startswith("core"):
                problems.append(f"{where}: {what} includes {inc}: core depends on no front end or backend")

    files = 0
    for module in graph:
        folder = root / "core" / module
        if not folder.is_dir():
            problems.append(f"core/{module}: declared in core/CMakeLists.txt but there is no folder")
            continue
        allowed = closure(graph, module)
        for path in sorted(folder.rglob("*")):
            if path.suffix in (".h", ".cpp", ".in"):
                check(path, allowed, f"core/{module}")
                files += 1
    for folder in sorted(p for p in (root / "core").iterdir() if p.is_dir()):
        if folder.name not in graph:
            problems.append(f"core/{folder.name}: a folder that is no module in core/CMakeLists.txt")
    kernels_allowed = closure(graph, "backend")
    for path in sorted((root / "kernels").rglob("*")):
        if path.suffix in (".h", ".cpp", ".cu", ".cuh"):
            check(path, kernels_allowed, "kernels")
            files += 1
    for p in problems:
        print(p)
    print(f"layering_test: {files} files, {len(graph)} modules, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
