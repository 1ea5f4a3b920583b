#!/usr/bin/env bash
# Packs the binaries built here (x86-64) with the shared libraries they need beyond glibc into
# .gpu/, for the lent GPU machine, which has the CUDA driver but none of our Debian libraries,
# and compresses it into .gpu.tgz: the device tool carries at most 64 MiB with the working tree,
# and the folder alone is past 60 MiB (OpenBLAS is 36). On the device:
#   tar xzf .gpu.tgz && bash .gpu/gpu_check.sh      (carry: [".gpu.tgz"])
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib
cp build/precision-lab build/tests/cuda/cuda_parity_tests .gpu/bin/
cp scripts/gpu_check.sh .gpu/
for b in .gpu/bin/*; do
  ldd "$b" | awk '/=> \// {print $3}' | while read -r lib; do
    case $(basename "$lib") in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libcuda.so*) ;;
      libGL*|libEGL*|libGLX*|libGLdispatch*|libOpenGL*) ;;  # the GPU machine's own GL stack
      *) cp -n "$lib" .gpu/lib/ ;;
    esac
  done
done
mkdir -p .gpu/glfallback
for l in libEGL.so.1 libGLdispatch.so.0 libOpenGL.so.0; do
  cp -L "/usr/lib/x86_64-linux-gnu/$l" .gpu/glfallback/ 2>/dev/null || true
done
strip --strip-unneeded .gpu/bin/* 2>/dev/null || true
tar czf .gpu.tgz .gpu
du -sh .gpu .gpu.tgz
