// Parallel compaction of a contiguous bool mask (nonzero, x[mask], x[mask] = v, masked_select, and its
// inverse masked_scatter_): count per block, then each block writes its true positions (or the elements
// there) from its prefix start.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
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

  // out[k] = the k-th selected element of x, a box of `sizes` (row-major over the mask) with `strides`, moved
  // as W (an unsigned integer or struct of the element's width). One pass: where offsets() and a gather wrote
  // and read an int64 per element (x[mask] and masked_select ran at half of PyTorch's unique_consecutive
  // time).
  template <typename W>
  void compact(const W* x, const int64_t* sizes, const int64_t* strides, int64_t nd, W* out) const {
    const uint8_t* m = reinterpret_cast<const uint8_t*>(p_);
    walk_box(sizes, strides, nd, true, [&](int64_t j, int64_t off, int64_t s, int64_t i, int64_t len) {
      return run(x + off, s, m + i, len, out + j);
    });
  }

  // The inverse of compact(): the k-th selected element of x (a box of `sizes`, row-major over the mask, with
  // `strides`) takes src[k] (masked_scatter_). Only true positions are written: eight mask bytes at a time,
  // all false skipped, all true copied whole where x is dense.
  template <typename W>
  void scatter(const W* src, W* x, const int64_t* sizes, const int64_t* strides, int64_t nd) const {
    const uint8_t* m = reinterpret_cast<const uint8_t*>(p_);
    walk_box(sizes, strides, nd, false, [&](int64_t j, int64_t off, int64_t s, int64_t i, int64_t len) {
      return put(src + j, m + i, len, x + off, s);
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
  // Walks each block's mask positions over a box of `sizes` with `strides` (row-major over the mask), in
  // runs along its innermost merged dim: step(j, off, stride, i, len) handles mask positions [i, i + len)
  // at element offset off, j being the block's selected count so far, and returns how many it selected.
  // Dims merge where a dim steps by the next one's extent (size-1 dims left out); the outer dims advance
  // as an odometer. end_on_true: a block stops at its last true element (compact's branchless writes may
  // not land past its own last slot).
  template <typename Step>
  void walk_box(const int64_t* sizes, const int64_t* strides, int64_t nd, bool end_on_true,
                Step&& step) const {
    DimVector sz, st;
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (sizes[d] == 1) continue;
      if (!sz.empty() && strides[d] == st.back() * sz.back())
        sz.back() *= sizes[d];
      else {
        sz.push_back(sizes[d]);
        st.push_back(strides[d]);
      }
    }
    if (sz.empty()) {
      sz.push_back(1);
      st.push_back(1);
    }
    const int64_t k = static_cast<int64_t>(sz.size());
    for_blocks([&](int64_t b, int64_t lo, int64_t hi) {
      int64_t j = start_[b];
      if (j == start_[b + 1]) return;
      if (end_on_true)
        while (!p_[hi - 1]) --hi;
      DimVector idx(k, 0);
      int64_t off = 0;
      for (int64_t d = 0, r = lo; d < k; ++d) {
        idx[d] = r % sz[d];
        r /= sz[d];
        off += idx[d] * st[d];
      }
      for (int64_t i = lo; i < hi;) {
        const int64_t len = std::min(hi - i, sz[0] - idx[0]);
        j += step(j, off, st[0], i, len);
        i += len;
        off += len * st[0];
        idx[0] += len;
        if (idx[0] < sz[0]) continue;
        off -= sz[0] * st[0];  // odometer over the outer dims
        idx[0] = 0;
        for (int64_t d = 1; d < k; ++d) {
          off += st[d];
          if (++idx[d] < sz[d]) break;
          off -= st[d] * sz[d];
          idx[d] = 0;
        }
      }
    });
  }

  // The selected ones of n elements of x (stride s) to dst; returns how many. Branchless: every element is
  // written and the slot advances past true ones only, so a false element's write is overwritten by the next
  // true one (or lands past the block's selection, which compact() rules out by ending on a true element).
  // Eight mask bytes at a time: all false skips them, all true copies them whole.
  template <typename W>
  static int64_t run(const W* x, int64_t s, const uint8_t* m, int64_t n, W* dst) {
    int64_t j = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, m + i, 8);
      if (w == 0) continue;
      if (w == 0x0101010101010101ULL) {
        if (s == 1)
          std::memcpy(static_cast<void*>(dst + j), x + i, 8 * sizeof(W));
        else
          for (int64_t t = 0; t < 8; ++t) dst[j + t] = x[(i + t) * s];
        j += 8;
        continue;
      }
      for (int64_t t = 0; t < 8; ++t) {
        dst[j] = x[(i + t) * s];
        j += m[i + t];
      }
    }
    for (; i < n; ++i) {
      dst[j] = x[i * s];
      j += m[i];
    }
    return j;
  }

  // scatter()'s run: src's next elements to the true ones of n elements of x (stride s); returns how many.
  template <typename W>
  static int64_t put(const W* src, const uint8_t* m, int64_t n, W* x, int64_t s) {
    int64_t j = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, m + i, 8);
      if (w == 0) continue;
      if (w == 0x0101010101010101ULL && s == 1) {
        std::memcpy(static_cast<void*>(x + i), src + j, 8 * sizeof(W));
        j += 8;
        continue;
      }
      for (int64_t t = 0; t < 8; ++t)
        if (m[i + t]) x[(i + t) * s] = src[j++];
    }
    for (; i < n; ++i)
      if (m[i]) x[i * s] = src[j++];
    return j;
  }

  int64_t blocks() const { return (n_ + kBlock - 1) / kBlock; }

  const bool* p_;
  int64_t n_;
  std::vector<int64_t> start_;  // start_[b]: true elements before block b; start_.back(): all of them
};

}  // namespace mt
