// Whether a new CPU block still holds the kernel's zero pages (so a zero fill of it can be skipped).
#pragma once

namespace mt {

// True when p is the start of a large CPU block (256 KiB and up) the allocator mapped fresh (anonymous mmap)
// for the request that returned it: every byte reads 0 and no page is touched yet. Clears the mark, so only
// the caller that just allocated p should ask, before anything writes it. False for everything else (small
// blocks, blocks the cache handed out again, another allocator installed).
bool cpu_take_fresh_zeroed(const void* p);

}  // namespace mt
