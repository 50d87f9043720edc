// How CPU kernels whose work comes in rows (planes, channels, embedding rows) split it over the thread pool:
// one grain rule, so every family hands a task about kGrainSize elements of work.
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/Parallel.h"

namespace mt {

// Items per task when each item costs `work_per_item` elements.
inline int64_t grain_for(int64_t work_per_item) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(work_per_item, 1));
}

// f(begin, end) over [0, rows): inline when it is one task's worth or already inside a parallel region.
template <typename F>
void parallel_rows(int64_t rows, int64_t per_row, F&& f) {
  const int64_t grain = grain_for(per_row);
  if (rows <= grain || in_parallel_region())
    f(0, rows);
  else
    parallel_for(0, rows, grain, f);
}

}  // namespace mt
