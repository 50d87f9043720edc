// Parallel compaction of a contiguous bool mask (nonzero, x[mask], x[mask] = v): count per block, then each
// block writes its true positions from its prefix start.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/Parallel.h"
#include "core/SmallVector.h"

namespace mt {

class MaskScan {
 public:
  // Fixed-size blocks, so the work split (and any result) never depends on the thread count.
  static constexpr int64_t kBlock = int64_t(1) << 16;

  MaskScan(const bool* mask, int64_t n) : p_(mask), n_(n), start_(static_cast<size_t>(blocks() + 1), 0) {
    const uint8_t* m = reinterpret_cast<const uint8_t*>(mask);
    for_blocks([&](int64_t b, int64_t lo, int64_t hi) {
      uint32_t c = 0;  // a block has at most 2^16 true elements; a 32-bit sum vectorizes
      for (int64_t i = lo; i < hi; ++i) c += m[i];
      start_[b + 1] = c;
    });
    for (int64_t b = 0; b < blocks(); ++b) start_[b + 1] += start_[b];
  }

  int64_t count() const { return start_.back(); }

  // out[k] = offset of the k-th true element in a box of `sizes` (row-major over the mask) with `strides`.
  void offsets(const int64_t* sizes, const int64_t* strides, int64_t nd, int64_t* out) const {
    // The box's dims collapse to one stride when, size-1 dims left out, each is the next one's extent times
    // its stride.
    bool flat = true;
    int64_t step = 0, in_stride = 0,
            in_size = 0;  // step: the innermost dim's stride; in_*: the last one seen
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (sizes[d] == 1) continue;
      if (in_size == 0)
        step = strides[d];
      else if (strides[d] != in_stride * in_size)
        flat = false;
      in_stride = strides[d];
      in_size = sizes[d];
    }
    for_blocks([&](int64_t b, int64_t lo, int64_t hi) {
      int64_t j = start_[b];
      if (j == start_[b + 1]) return;
      if (flat) {
        // Branchless: write every position, advance only past true ones. Stopping at the block's last true
        // element keeps the write after it out of the next block's first slot.
        while (!p_[hi - 1]) --hi;
        int64_t off = lo * step;
        for (int64_t i = lo; i < hi; ++i, off += step) {
          out[j] = off;
          j += p_[i];
        }
        return;
      }
      DimVector idx(nd, 0);
      int64_t off = 0;
      for (int64_t d = nd - 1, r = lo; d >= 0; --d) {
        idx[d] = r % sizes[d];
        r /= sizes[d];
        off += idx[d] * strides[d];
      }
      for (int64_t i = lo; i < hi; ++i) {
        if (p_[i]) out[j++] = off;
        for (int64_t d = nd - 1; d >= 0; --d) {  // odometer: next row-major position
          off += strides[d];
          if (++idx[d] < sizes[d]) break;
          off -= strides[d] * sizes[d];
          idx[d] = 0;
        }
      }
    });
  }

  // f(block, lo, hi) for every block, blocks in parallel when there is more than one.
  template <typename F>
  void for_blocks(F&& f) const {
    auto run = [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) f(b, b * kBlock, std::min(n_, (b + 1) * kBlock));
    };
    if (blocks() <= 1 || in_parallel_region())
      run(0, blocks());
    else
      parallel_for(0, blocks(), 1, run);
  }

  // The first output position of block b.
  int64_t start(int64_t b) const { return start_[static_cast<size_t>(b)]; }

 private:
  int64_t blocks() const { return (n_ + kBlock - 1) / kBlock; }

  const bool* p_;
  int64_t n_;
  std::vector<int64_t> start_;  // start_[b]: true elements before block b; start_.back(): all of them
};

}  // namespace mt
