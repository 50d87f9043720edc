// Bulk byte copies that avoid glibc memcpy's slow case for destinations just past their source's alignment.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mt {

#if defined(__SSE2__)
// Four 16-byte moves a step. Kept a loop (no-tree-loop-distribute-patterns): GCC would turn it back into the
// memcpy call it replaces.
__attribute__((optimize("no-tree-loop-distribute-patterns"))) inline void copy_bytes_sse(char* d,
                                                                                         const char* s,
                                                                                         size_t n) {
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), a);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
  }
  std::memcpy(d + i, s + i, n - i);
}
#endif

// memcpy of non-overlapping ranges. glibc 2.36's memcpy moves 2 KiB .. 1 MiB with `rep movsb` on CPUs with
// ERMS/FSRM, which on the AMD EPYC measured runs 15x slower when dst - src is not a multiple of 64 bytes
// (a 256 KiB copy: 75 us at dst - src = 8, 4.6 us at 0 or 64; roll by two floats, cat at an odd offset).
// Those copies run in SSE moves instead (4.5-6 us for 256 KiB at every offset; above 1 MiB glibc's own path
// is as fast).
inline void copy_bytes(void* dst, const void* src, size_t n) {
#if defined(__SSE2__)
  const uintptr_t gap = reinterpret_cast<uintptr_t>(dst) - reinterpret_cast<uintptr_t>(src);
  if (n >= 1024 && n <= (size_t(1) << 20) && (gap & 63) != 0) {
    copy_bytes_sse(static_cast<char*>(dst), static_cast<const char*>(src), n);
    return;
  }
#endif
  std::memcpy(dst, src, n);
}

}  // namespace mt
