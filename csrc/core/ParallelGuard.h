// The state of core/Parallel.cpp's late-worker guard (kept out of Parallel.h, which nearly every file
// includes).
#pragma once

namespace mt {

// Whether parallel_for runs on the calling thread for now: a recent region's caller waited long for a
// preempted worker (more runnable threads than cores; Parallel.cpp's late-worker guard).
bool parallel_backing_off();

}  // namespace mt
