// Marks functions that compile for both the host and, under nvcc, the device.
// Core headers that kernels include use only this macro, never a CUDA header.
#pragma once
#if defined(__CUDACC__)
#define PL_HD __host__ __device__
#else
#define PL_HD
#endif
