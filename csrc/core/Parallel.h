// parallel_for over a range with a persistent, fork-safe thread pool (DataLoader workers fork after we ran).
#pragma once
#include <cstdint>
#include <functional>

namespace mt {

// Elements below which an elementwise loop stays on the calling thread (PyTorch uses the same grain).
constexpr int64_t kGrainSize = 32768;

int get_num_threads();
void set_num_threads(int n);
bool in_parallel_region();

// Calls f(begin, end) on disjoint chunks covering [begin, end), each of at least `grain` elements
// (except the last). Exceptions in a chunk are rethrown on the calling thread.
void parallel_for(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& f);

}  // namespace mt
