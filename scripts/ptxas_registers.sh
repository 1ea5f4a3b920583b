#!/usr/bin/env bash
# The registers and spills ptxas gives each grid-stride kernel (kernels/grid_stride.cuh), for
# each architecture the build generates code for, with the build's own nvcc flags: the bound
# that keeps one full wave of blocks resident holds (65536 registers over the threads a
# multiprocessor keeps resident: 32 on sm_80 and sm_90, 42 on sm_89) and nothing spills. Needs
# nvcc, not a GPU. Exits 1 where a kernel is past its bound or spills, or where a kernel that
# declares the bound (grep PL_GRID_STRIDE_BOUNDS in kernels/) was not seen for an architecture.
# The architectures are CMake's (PL_CUDA_ARCHS, comma-separated as the CTest entry passes them;
# else 80,89,90).
#   bash scripts/ptxas_registers.sh > docs/cuda-build/ptxas-registers.txt
set -euo pipefail
cd "$(dirname "$0")/.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[[ -x $NVCC ]] || { echo "ptxas_registers: no nvcc" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "nvcc: $("$NVCC" --version | tail -1)"
# (the flags of kernels/CMakeLists.txt and the top-level CMakeLists.txt that change code)
flags=(-I. -O3 -DNDEBUG -Xcompiler=-ffp-contract=off --fmad=false --expt-relaxed-constexpr -std=c++17 -Xptxas -v)
archs=${PL_CUDA_ARCHS:-80,89,90}
files=$(grep -l PL_GRID_STRIDE_BOUNDS kernels/*.cu | xargs -n1 basename | sed 's/\.cu$//')
for arch in ${archs//[,;]/ }; do
  arch=${arch%%-*}  # (CMake's "90-real")
  for file in $files; do
    "$NVCC" "${flags[@]}" --generate-code=arch=compute_$arch,code=sm_$arch -x cu -c "kernels/$file.cu" \
      -o "$work/$file.o" 2>"$work/sm_$arch-$file.log"
  done
done
python3 - "$work" <<'EOF'
import glob, os, re, subprocess, sys

# The kernels that declare PL_GRID_STRIDE_BOUNDS (read from the sources), and the threads a
# multiprocessor keeps resident on each architecture (kernels/grid_stride.cuh: 8 blocks of 256,
# 6 on sm_86, sm_89 and sm_120).
GRID_STRIDE = set()
for source in glob.glob("kernels/*.cu"):
    GRID_STRIDE |= set(re.findall(r"PL_GRID_STRIDE_BOUNDS\s+(\w+)\s*\(", open(source).read()))
RESIDENT = lambda arch: 1536 if arch in ("86", "89") or int(arch) >= 120 else 2048
failed = 0
seen = {}
for log in sorted(glob.glob(os.path.join(sys.argv[1], "*.log"))):
    arch = re.search(r"sm_(\d+)", os.path.basename(log)).group(1)
    bound = 65536 // RESIDENT(arch)
    kernel = None
    for line in open(log):
        if m := re.search(r"Compiling entry function '(\w+)'", line):
            kernel = subprocess.run(["c++filt", m.group(1)], capture_output=True, text=True).stdout.strip()
            kernel = re.sub(r"pl::cuda::\(anonymous namespace\)::", "", kernel)
            stack = stores = loads = None  # (this entry's own figures, not the last one's)
        elif m := re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line):
            stack, stores, loads = map(int, m.groups())
        elif (m := re.search(r"Used (\d+) registers", line)) and kernel:
            name = kernel.split("<")[0].split("(")[0].split()[-1]  # (a template's starts "void ")
            if name not in GRID_STRIDE:
                continue
            regs = int(m.group(1))
            seen.setdefault(arch, set()).add(name)
            if stack is None:  # (ptxas said nothing of its frame: read as a failure, not a pass)
                stack, stores, loads = -1, -1, -1
            ok = stores == 0 and loads == 0 and regs <= bound
            failed += not ok
            print(f"sm_{arch}  {regs:3d} registers (bound {bound})  stack {stack:3d} B  spills {stores}/{loads} B"
                  f"  {'ok ' if ok else 'PAST'}  {kernel}")
            kernel = None
for arch, names in sorted(seen.items()):
    for missing in sorted(GRID_STRIDE - names):
        print(f"sm_{arch}  {missing}: declares the bound but ptxas compiled no such kernel")
        failed += 1
print(f"{failed} grid-stride kernels past their bound, spilling or missing")
sys.exit(1 if failed else 0)
EOF
