#pragma once
// One definition for host and device code (Random123's convention): functions marked TEV_HD
// compile for the CPU and, under nvcc, for the GPU.
#ifdef __CUDACC__
#define TEV_HD __host__ __device__
#else
#define TEV_HD
#endif
