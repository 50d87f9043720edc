// Portability macros shared by host C++ and CUDA translation units.
#pragma once

#if defined(__CUDACC__)
#define MT_HOST_DEVICE __host__ __device__
#define MT_DEVICE_INLINE __device__ __forceinline__
#else
#define MT_HOST_DEVICE
#endif
#define MT_HD_INLINE MT_HOST_DEVICE inline
