// oneDNN's OpenMP thread count for the CPU kernels that call oneDNN (conv.cpp, blas.cpp), set per call.
#pragma once

namespace mt {

// Sets the calling thread's OpenMP thread count for the next oneDNN call and returns it: set_num_threads'
// count; one inside our own pool's workers (no nesting) and in a forked child (the parent's OpenMP threads do
// not exist there, and libgomp would wait for them). Defined in conv.cpp, only in builds with oneDNN.
int onednn_sync_threads();

}  // namespace mt
