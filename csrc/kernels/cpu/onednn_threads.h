// oneDNN's OpenMP thread count for the CPU kernels that call oneDNN (conv.cpp, blas.cpp), set per call.
#pragma once

namespace mt {

// Sets the calling thread's OpenMP thread count for the next oneDNN call and returns it: set_num_threads'
// count; one inside our own pool's workers (no nesting) and in a forked child (the parent's OpenMP threads do
// not exist there, and libgomp would wait for them); at most `most` (rnn.cpp caps small recurrences at one).
// Defined in conv.cpp, only in builds with oneDNN.
int onednn_sync_threads(int most = 1 << 30);

// Our pool's idle workers stop spinning and sleep, so two pools never spin at once on the same cores.
// Defined in core/Parallel.cpp (declared here, not in Parallel.h, which nearly every file includes).
void parallel_yield_cores();

}  // namespace mt
