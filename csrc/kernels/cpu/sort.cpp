// CPU kernels of the sort family (layout: see ops/sort.h): rows sorted (or selected from) independently, in
// parallel; and tril/triu.
#include "ops/sort.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/CopyBytes.h"
#include "core/Parallel.h"
#include "core/ScalarType.h"
#include "kernels/ReduceRules.h"
#include "kernels/cpu/ParallelRows.h"

namespace mt {
namespace {

template <typename T>
bool nan_(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}

// Ties broken by input position, so the order is total: std::sort and std::partial_sort then give exactly
// the stable order (PyTorch's stable=True), faster than std::stable_sort. NaN is the largest value.
template <typename K>
struct RowOrder {
  bool descending;
  bool operator()(const std::pair<K, int64_t>& a, const std::pair<K, int64_t>& b) const {
    bool an = nan_(a.first), bn = nan_(b.first);
    if (an || bn) {
      if (an != bn) return descending ? an : bn;
      return a.second < b.second;
    }
    if (a.first != b.first) return descending ? a.first > b.first : a.first < b.first;
    return a.second < b.second;
  }
};

// Radix sort of long rows. The comparison sort below costs ~100 ns per element on a 1M row; an LSD radix sort
// over an order-preserving unsigned key costs a few passes over memory.
// It is stable, so ties keep their input order, as RowOrder's position tie-break does; the keys encode
// RowOrder's order exactly: NaN above everything (-NaN too), -0.0 equal to +0.0, descending as the
// complement.
template <typename K>
struct RadixKey {
  using U = std::conditional_t<
      sizeof(K) <= 1, uint8_t,
      std::conditional_t<sizeof(K) == 2, uint16_t, std::conditional_t<sizeof(K) == 4, uint32_t, uint64_t>>>;
  static U of(K v, bool descending) {
    U u;
    if constexpr (std::is_same_v<K, bool>) {
      u = static_cast<U>(v);
    } else if constexpr (std::is_floating_point_v<K>) {
      if (std::isnan(v)) {
        u = ~U(0);
      } else {
        if (v == K(0)) v = K(0);  // -0.0 sorts with +0.0
        std::memcpy(&u, &v, sizeof(K));
        const U sign = U(1) << (8 * sizeof(K) - 1);
        u = (u & sign) ? static_cast<U>(~u) : static_cast<U>(u | sign);
      }
    } else if constexpr (std::is_signed_v<K>) {
      u = static_cast<U>(static_cast<U>(v) ^ (U(1) << (8 * sizeof(K) - 1)));
    } else {
      u = static_cast<U>(v);
    }
    return descending ? static_cast<U>(~u) : u;
  }
};

constexpr int64_t kRadixMinRow = 4096;

// idx[0, n): the stable order of row's elements (ties by position).
template <typename K, typename T>
void radix_order(const T* row, int64_t n, bool descending, std::vector<int64_t>& idx) {
  using U = typename RadixKey<K>::U;
  constexpr int kPasses = sizeof(U);
  std::vector<U> key(static_cast<size_t>(n)), key2(static_cast<size_t>(n));
  std::vector<int64_t> idx2(static_cast<size_t>(n));
  idx.resize(static_cast<size_t>(n));
  // every byte's histogram in one read
  std::vector<int64_t> count(static_cast<size_t>(kPasses) * 256, 0);
  for (int64_t j = 0; j < n; ++j) {
    const U u = RadixKey<K>::of(static_cast<K>(row[j]), descending);
    key[j] = u;
    idx[j] = j;
    for (int p = 0; p < kPasses; ++p) ++count[p * 256 + ((u >> (8 * p)) & 0xff)];
  }
  for (int p = 0; p < kPasses; ++p) {
    int64_t* c = count.data() + p * 256;
    const int shift = 8 * p;
    if (c[(key[0] >> shift) & 0xff] == n) continue;  // one digit value for the whole row: nothing moves
    int64_t sum = 0;
    for (int d = 0; d < 256; ++d) {
      const int64_t v = c[d];
      c[d] = sum;
      sum += v;
    }
    for (int64_t j = 0; j < n; ++j) {
      const int64_t to = c[(key[j] >> shift) & 0xff]++;
      key2[to] = key[j];
      idx2[to] = idx[j];
    }
    key.swap(key2);
    idx.swap(idx2);
  }
}

// The first k (< n) of a row in RowOrder's order (NaN largest, ties by position), by RadixKey's
// order-preserving unsigned keys (the complement for descending): the smallest keys are the answer, and an
// element later in the row loses a tie. std::partial_sort's heap of (value, index) pairs with RowOrder's NaN
// branches ran topk(t, 5) of [64, 100] float32 at 0.8 of PyTorch's speed and k = 512 of 4096 at 0.43.
// Up to kInsertK: a sorted array of the best k so far, which an element enters only below its last key
// (then by insertion; a later equal key stays behind); at most k moves per element on any input order.
constexpr int64_t kInsertK = 16;
template <typename K, typename T>
void top_k_insert(const T* row, int64_t n, int64_t k, bool descending, T* vout, int64_t* iout) {
  using U = typename RadixKey<K>::U;
  U key[kInsertK];
  int64_t at[kInsertK];
  int64_t m = 0;
  for (int64_t j = 0; j < n; ++j) {
    const U u = RadixKey<K>::of(static_cast<K>(row[j]), descending);
    int64_t pos;
    if (m == k) {
      if (!(u < key[k - 1])) continue;
      pos = k - 1;
    } else {
      pos = m++;
    }
    for (; pos > 0 && key[pos - 1] > u; --pos) {
      key[pos] = key[pos - 1];
      at[pos] = at[pos - 1];
    }
    key[pos] = u;
    at[pos] = j;
  }
  for (int64_t j = 0; j < k; ++j) {
    vout[j] = row[at[j]];
    iout[j] = at[j];
  }
}

// Larger k: the keys with the index below them (one unsigned compare is RowOrder's order, ties included)
// collect in a buffer of k + kSpare candidates; only a key below the current k-th's enters (a later equal key
// loses its tie), and a full buffer is cut back to its k smallest (nth_element), which lowers the bar. Linear
// in n for any input order. `sorted` false leaves the k in nth_element's order. `buf` is the task's.
template <typename K, typename T, typename CK>
void top_k_select(const T* row, int64_t n, int64_t k, bool descending, bool sorted, T* vout, int64_t* iout,
                  std::vector<CK>& buf) {
  using U = typename RadixKey<K>::U;
  constexpr int kShift = sizeof(CK) == 8 ? 32 : 64;
  const int64_t cap = std::min(n, k + std::max<int64_t>(k, 64));
  buf.resize(static_cast<size_t>(cap));
  CK* b = buf.data();
  for (int64_t j = 0; j < cap; ++j)
    b[j] = (CK(RadixKey<K>::of(static_cast<K>(row[j]), descending)) << kShift) | CK(j);
  std::nth_element(b, b + (k - 1), b + cap);
  int64_t m = k;
  U bar = static_cast<U>(b[k - 1] >> kShift);
  for (int64_t j = cap; j < n; ++j) {
    const U u = RadixKey<K>::of(static_cast<K>(row[j]), descending);
    if (!(u < bar)) continue;
    b[m++] = (CK(u) << kShift) | CK(j);
    if (m == cap) {
      std::nth_element(b, b + (k - 1), b + m);
      m = k;
      bar = static_cast<U>(b[k - 1] >> kShift);
    }
  }
  if (m > k) std::nth_element(b, b + (k - 1), b + m);
  if (sorted) std::sort(b, b + k);
  const CK low = (CK(1) << kShift) - 1;
  for (int64_t j = 0; j < k; ++j) {
    const int64_t at = static_cast<int64_t>(b[j] & low);
    vout[j] = row[at];
    iout[j] = at;
  }
}

void sort_cpu(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t n, int64_t k,
              bool descending, bool sorted) {
  const int64_t rows = in.numel() / n;
  MT_DISPATCH_ALL_TYPES(in.dtype(), "sort_cpu", [&] {
    using key_t = opmath_t<scalar_t>;
    const scalar_t* src = in.data<scalar_t>();
    scalar_t* vout = values.data<scalar_t>();
    int64_t* iout = indices.data<int64_t>();
    RowOrder<key_t> order{descending};
    if constexpr (!std::is_same_v<key_t, bool>) {
      if (k > 0 && k < n && n < (int64_t(1) << 32)) {
        using CK = std::conditional_t<sizeof(typename RadixKey<key_t>::U) <= 4, uint64_t, unsigned __int128>;
        parallel_for(0, rows, grain_for(n), [&](int64_t b, int64_t e) {
          std::vector<CK> buf;
          for (int64_t r = b; r < e; ++r) {
            if (k <= kInsertK)
              top_k_insert<key_t>(src + r * n, n, k, descending, vout + r * k, iout + r * k);
            else
              top_k_select<key_t>(src + r * n, n, k, descending, sorted, vout + r * k, iout + r * k, buf);
          }
        });
        return;
      }
    }
    if (k == n && n >= kRadixMinRow) {
      parallel_for(0, rows, 1, [&](int64_t b, int64_t e) {
        std::vector<int64_t> idx;
        for (int64_t r = b; r < e; ++r) {
          const scalar_t* row = src + r * n;
          radix_order<key_t>(row, n, descending, idx);
          for (int64_t j = 0; j < n; ++j) {
            vout[r * n + j] = row[idx[j]];
            iout[r * n + j] = idx[j];
          }
        }
      });
      return;
    }
    parallel_for(0, rows, grain_for(n), [&](int64_t b, int64_t e) {
      std::vector<std::pair<key_t, int64_t>> buf(static_cast<size_t>(n));
      for (int64_t r = b; r < e; ++r) {
        const scalar_t* row = src + r * n;
        for (int64_t j = 0; j < n; ++j) buf[j] = {static_cast<key_t>(row[j]), j};
        if (k == n)
          std::sort(buf.begin(), buf.end(), order);
        else  // a heap of k: on random data it beats nth_element + sort for small k (10: 3-6x)
          std::partial_sort(buf.begin(), buf.begin() + k, buf.end(), order);
        for (int64_t j = 0; j < k; ++j) {
          vout[r * k + j] = row[buf[j].second];
          iout[r * k + j] = buf[j].second;
        }
      }
    });
  });
}

// median / nanmedian of one row, the value alone: PyTorch's median_impl (a NaN gives NaN, or nanmedian takes
// the lower median of the others), partitioning a copy of the values. The NaNs are moved out first, so the
// selection compares with a plain < (the comparison with NaN-last branches cost median of 65,536 float32
// values 0.92 of PyTorch's speed).
template <typename T>
T median_value(const T* row, int64_t n, bool ignore_nan) {
  using key_t = opmath_t<T>;
  std::vector<key_t> buf(row, row + n);
  int64_t nans = 0;
  for (int64_t j = 0; j < n; ++j) nans += nan_(buf[j]) ? 1 : 0;
  if (nans > 0 && !ignore_nan) return static_cast<T>(std::numeric_limits<key_t>::quiet_NaN());
  auto end = buf.end();
  if (nans > 0) end = std::remove_if(buf.begin(), buf.end(), [](key_t v) { return nan_(v); });
  if (end == buf.begin()) return static_cast<T>(std::numeric_limits<key_t>::quiet_NaN());  // all NaN
  auto mid = buf.begin() + (end - buf.begin() - 1) / 2;
  std::nth_element(buf.begin(), mid, end);
  return static_cast<T>(*mid);
}

// The order is total (ties by position), so nth_element picks exactly the stable sort's element k. Without
// indices: one row's median (k = -1) or nanmedian (k = -2) value.
void select_cpu(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t n, int64_t k) {
  const int64_t rows = in.numel() / n;
  if (!indices.defined()) {
    MT_DISPATCH_ALL_TYPES(in.dtype(), "median_cpu",
                          [&] { *values.data<scalar_t>() = median_value(in.data<scalar_t>(), n, k == -2); });
    return;
  }
  MT_DISPATCH_ALL_TYPES(in.dtype(), "select_cpu", [&] {
    using key_t = opmath_t<scalar_t>;
    const scalar_t* src = in.data<scalar_t>();
    scalar_t* vout = values.data<scalar_t>();
    int64_t* iout = indices.data<int64_t>();
    RowOrder<key_t> order{false};
    parallel_for(0, rows, grain_for(n), [&](int64_t b, int64_t e) {
      std::vector<std::pair<key_t, int64_t>> buf(static_cast<size_t>(n));
      for (int64_t r = b; r < e; ++r) {
        const scalar_t* row = src + r * n;
        int64_t nans = 0;
        for (int64_t j = 0; j < n; ++j) {
          buf[j] = {static_cast<key_t>(row[j]), j};
          nans += nan_(buf[j].first) ? 1 : 0;
        }
        int64_t pos = k >= 0 ? k : (nans > 0 ? n - nans : (n - 1) / 2);
        std::nth_element(buf.begin(), buf.begin() + pos, buf.end(), order);
        vout[r] = row[buf[pos].second];
        iout[r] = buf[pos].second;
      }
    });
  });
}

// The mode of one unsorted row: its values as RadixKey's order-preserving unsigned keys (NaN one key above
// every number, -0.0 the key of +0.0), sorted alone, scanned for the first longest run; the index is the
// row's last element with that key. The same value and index as the stable (value, index) sort and
// mode_run_end, with half the bytes moved by a sort of plain integers.
template <typename K, typename T>
int64_t row_mode(const T* row, int64_t n, std::vector<typename RadixKey<K>::U>& key) {
  using U = typename RadixKey<K>::U;
  key.resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) key[j] = RadixKey<K>::of(static_cast<K>(row[j]), false);
  std::sort(key.begin(), key.end());
  U best = key[0];
  int64_t best_len = 0;
  for (int64_t j = 0; j < n;) {
    int64_t e = j + 1;
    while (e < n && key[e] == key[j]) ++e;
    if (e - j > best_len) {
      best_len = e - j;
      best = key[j];
    }
    j = e;
  }
  int64_t j = n - 1;
  while (RadixKey<K>::of(static_cast<K>(row[j]), false) != best) --j;
  return j;
}

void mode_cpu(const Tensor& values, const Tensor& indices, const Tensor& sorted, const Tensor& sorted_idx,
              int64_t n) {
  const int64_t rows = sorted.numel() / n;
  if (!sorted_idx.defined()) {  // unsorted rows (ops/sort.h)
    MT_DISPATCH_ALL_TYPES(sorted.dtype(), "mode_cpu", [&] {
      using key_t = opmath_t<scalar_t>;
      const scalar_t* s = sorted.data<scalar_t>();
      scalar_t* vout = values.data<scalar_t>();
      int64_t* iout = indices.data<int64_t>();
      parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / n), [&](int64_t b, int64_t e) {
        std::vector<typename RadixKey<key_t>::U> key;
        for (int64_t r = b; r < e; ++r) {
          const scalar_t* row = s + r * n;
          const int64_t j = row_mode<key_t>(row, n, key);
          vout[r] = row[j];
          iout[r] = j;
        }
      });
    });
    return;
  }
  MT_DISPATCH_ALL_TYPES(sorted.dtype(), "mode_cpu", [&] {
    const scalar_t* s = sorted.data<scalar_t>();
    const int64_t* si = sorted_idx.data<int64_t>();
    scalar_t* vout = values.data<scalar_t>();
    int64_t* iout = indices.data<int64_t>();
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / n), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const scalar_t* row = s + r * n;
        const int64_t best = reduce_rules::mode_run_end<opmath_t<scalar_t>>(row, n);
        vout[r] = row[best];
        iout[r] = si[r * n + best];
      }
    });
  });
}

// ---- tril / triu. Every dtype's zero is all zero bits, so the kernel only moves elements of the dtype's
// width: per row, the kept columns [lo, hi) copied and the others zeroed.

// Element offsets of the matrices of `t` (its dims before the last two), in row-major order of those dims.
std::vector<int64_t> matrix_offsets(const Tensor& t) {
  const int64_t nb = t.dim() - 2;
  int64_t count = 1;
  for (int64_t d = 0; d < nb; ++d) count *= t.sizes()[d];
  std::vector<int64_t> off(static_cast<size_t>(count));
  std::vector<int64_t> idx(static_cast<size_t>(nb), 0);
  int64_t cur = 0;
  for (int64_t b = 0; b < count; ++b) {
    off[static_cast<size_t>(b)] = cur;
    for (int64_t d = nb - 1; d >= 0; --d) {
      cur += t.strides()[d];
      if (++idx[d] < t.sizes()[d]) break;
      cur -= idx[d] * t.strides()[d];
      idx[d] = 0;
    }
  }
  return off;
}

template <typename T>
void zero_run(T* p, int64_t stride, int64_t n) {
  if (n <= 0) return;
  if (stride == 1) {
    std::memset(static_cast<void*>(p), 0, static_cast<size_t>(n) * sizeof(T));
    return;
  }
  for (int64_t j = 0; j < n; ++j) p[j * stride] = T{};
}

template <typename T>
void triangle_typed(const Tensor& out, const Tensor& self, int64_t diagonal, bool lower) {
  const int64_t nd = self.dim(), rows = self.sizes()[nd - 2], cols = self.sizes()[nd - 1];
  // a diagonal beyond the matrix keeps all or nothing: clamped, row + diagonal cannot overflow
  const int64_t k = std::clamp<int64_t>(diagonal, -(rows + 1), cols + 1);
  const bool fill_in = !out.is_same(self);
  const std::vector<int64_t> ob = matrix_offsets(out), ib = matrix_offsets(self);
  T* o = out.data<T>();
  const T* x = self.data<T>();
  const int64_t osr = out.strides()[nd - 2], osc = out.strides()[nd - 1];
  const int64_t isr = self.strides()[nd - 2], isc = self.strides()[nd - 1];
  // kept columns of row i: [lo, hi), where j - i <= k (lower) or j - i >= k (upper)
  auto lo_of = [&](int64_t i) { return lower ? 0 : std::clamp<int64_t>(i + k, 0, cols); };
  auto hi_of = [&](int64_t i) { return lower ? std::clamp<int64_t>(i + k + 1, 0, cols) : cols; };
  // Tiles of kTile rows: with rows dense in memory, a plain copy per row; otherwise (a transposed input) the
  // kept part goes kTile columns at a time, so the cache lines a tile's strided reads fetch serve its other
  // rows too (what PyTorch gets by making such an input contiguous first, without reading the zeroed part).
  constexpr int64_t kTile = 32;
  const int64_t tiles = (rows + kTile - 1) / kTile;
  parallel_rows(static_cast<int64_t>(ob.size()) * tiles, kTile * cols, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t b = t / tiles, i0 = (t % tiles) * kTile, i1 = std::min(rows, i0 + kTile);
      T* om = o + ob[static_cast<size_t>(b)];
      const T* xm = x + ib[static_cast<size_t>(b)];
      for (int64_t i = i0; i < i1; ++i) {
        const int64_t lo = lo_of(i), hi = hi_of(i);
        zero_run(om + i * osr, osc, lo);
        zero_run(om + i * osr + hi * osc, osc, cols - hi);
        if (fill_in && hi > lo && osc == 1 && isc == 1)
          copy_bytes(static_cast<void*>(om + i * osr + lo), xm + i * isr + lo,
                     static_cast<size_t>(hi - lo) * sizeof(T));
      }
      if (!fill_in || (osc == 1 && isc == 1)) continue;
      for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
        const int64_t j1 = std::min(cols, j0 + kTile);
        for (int64_t i = i0; i < i1; ++i) {
          const int64_t a = std::max(j0, lo_of(i)), e = std::min(j1, hi_of(i));
          T* orow = om + i * osr;
          const T* irow = xm + i * isr;
          for (int64_t j = a; j < e; ++j) orow[j * osc] = irow[j * isc];
        }
      }
    }
  });
}

void triangle_cpu(const Tensor& out, const Tensor& self, int64_t diagonal, bool lower) {
  dispatch_width(self.itemsize(), [&](auto w) {  // moving bytes: only the width matters
    triangle_typed<decltype(w)>(out, self, diagonal, lower);
  });
}

// PyTorch's cus_lower_bound / cus_upper_bound, with its negated comparisons: a NaN value, which compares
// false with everything, moves right every step and lands at m.
template <typename K, typename T>
int64_t insertion_point(const T* bd, int64_t m, K v, bool right) {
  int64_t lo = 0, hi = m;
  while (lo < hi) {
    const int64_t mid = lo + ((hi - lo) >> 1);
    const K b = static_cast<K>(bd[mid]);
    // selects, not a branch: on random values the probe's outcome is a coin flip
    const bool go = right ? !(b > v) : !(b >= v);
    lo = go ? mid + 1 : lo;
    hi = go ? hi : mid;
  }
  return lo;
}

void searchsorted_cpu(const Tensor& out, const Tensor& seq, const Tensor& values, bool right) {
  const int64_t m = seq.sizes()[seq.dim() - 1], n = values.sizes()[values.dim() - 1];
  const bool shared = seq.dim() == 1;
  int64_t* o = out.data<int64_t>();
  MT_DISPATCH_ALL_TYPES(seq.dtype(), "searchsorted_cpu", [&] {
    using key_t = opmath_t<scalar_t>;
    const scalar_t* bd = seq.data<scalar_t>();
    const scalar_t* v = values.data<scalar_t>();
    // a value costs about log2(m) dependent loads: the grain keeps a task near kGrainSize of them
    int64_t steps = 1;
    while ((int64_t{1} << steps) < m) ++steps;
    parallel_for(0, values.numel(), std::max<int64_t>(1, kGrainSize / steps), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const scalar_t* row = shared ? bd : bd + (i / n) * m;
        o[i] = insertion_point<key_t>(row, m, static_cast<key_t>(v[i]), right);
      }
    });
  });
}

// The bin of value v (inside [lo, hi], not NaN), as PyTorch's histogramdd kernel finds it (HistMode in
// ops/sort.h); the interpolation's steps are rounded in T (scalar_t) one by one, as its input_t arithmetic.
template <typename T, typename A>
struct HistBin {
  const T* edges;
  int64_t bins;
  A lo, width, nb;
  HistMode mode;
  int64_t operator()(A v) const {
    int64_t pos;
    if (mode == HistMode::search) {
      pos = upper(0, bins + 1, v);
    } else {
      const A d = static_cast<A>(static_cast<T>(v - lo));
      const A q = static_cast<A>(static_cast<T>(static_cast<A>(static_cast<T>(d * nb)) / width));
      pos = static_cast<int64_t>(q);
      if (mode == HistMode::linear_search) {
        // the interpolation may miss an edge by one bin; the edges decide (PyTorch's local search)
        const int64_t a = std::min<int64_t>(std::max<int64_t>(0, pos - 1), bins);
        const int64_t b = std::max<int64_t>(std::min<int64_t>(pos + 2, bins + 1), a + 1);
        pos = upper(a, b, v);
      }
    }
    // the last bin is closed on the right (and the interpolation's rounding stays in range)
    return pos < 0 ? 0 : pos >= bins ? bins - 1 : pos;
  }
  // one before the first edge in [a, b) greater than v (a - 1 when there is none before it)
  int64_t upper(int64_t a, int64_t b, A v) const {
    while (a < b) {
      const int64_t mid = a + ((b - a) >> 1);
      const bool go = !(v < static_cast<A>(edges[mid]));
      a = go ? mid + 1 : a;
      b = go ? b : mid;
    }
    return a - 1;
  }
};

void histogram_cpu(const Tensor& hist, const Tensor& in, const Tensor& weight, const Tensor& edges,
                   double lo_d, double hi_d, HistMode mode) {
  const int64_t n = in.numel(), bins = hist.numel();
  MT_DISPATCH_FLOATING_TYPES(in.dtype(), "histogram_cpu", [&] {
    using A = opmath_t<scalar_t>;
    const scalar_t* e = edges.defined() ? edges.data<scalar_t>() : nullptr;
    // the range in the input's dtype: linspace's end points, or the bounds rounded as PyTorch's edges are
    const A lo = e ? static_cast<A>(e[0]) : static_cast<A>(static_cast<scalar_t>(lo_d));
    const A hi = e ? static_cast<A>(e[bins]) : static_cast<A>(static_cast<scalar_t>(hi_d));
    const HistBin<scalar_t, A> bin{e,
                                   bins,
                                   lo,
                                   static_cast<A>(static_cast<scalar_t>(hi - lo)),
                                   static_cast<A>(static_cast<scalar_t>(static_cast<A>(bins))),
                                   mode};
    const scalar_t* x = in.data<scalar_t>();
    scalar_t* h = hist.data<scalar_t>();
    if (weight.defined()) {
      // sums in the input's dtype, in the values' order (PyTorch's one-thread order): no threads
      const scalar_t* w = weight.data<scalar_t>();
      std::fill(h, h + bins, static_cast<scalar_t>(0));
      for (int64_t i = 0; i < n; ++i) {
        const A v = static_cast<A>(x[i]);
        if (!(v >= lo && v <= hi)) continue;
        const int64_t p = bin(v);
        h[p] = static_cast<scalar_t>(static_cast<A>(h[p]) + static_cast<A>(w[i]));
      }
      return;
    }
    // counted in int64 (exact; a bfloat16 count would stop at 256) by chunks, rounded to the dtype once
    std::vector<int64_t> counts(bins, 0);
    std::mutex merge;
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t end) {
      std::vector<int64_t> local(b == 0 && end == n ? 0 : bins, 0);
      int64_t* c = local.empty() ? counts.data() : local.data();
      for (int64_t i = b; i < end; ++i) {
        const A v = static_cast<A>(x[i]);
        if (v >= lo && v <= hi) ++c[bin(v)];
      }
      if (!local.empty()) {
        std::lock_guard<std::mutex> g(merge);
        for (int64_t k = 0; k < bins; ++k) counts[k] += local[k];
      }
    });
    for (int64_t k = 0; k < bins; ++k) h[k] = static_cast<scalar_t>(static_cast<A>(counts[k]));
  });
}

// a run starts where an element differs from the one before (`!=`: each NaN starts its own run, as ne)
int64_t unique_consecutive_cpu(const Tensor& out, const Tensor& in) {
  const int64_t n = in.numel();
  int64_t k = 1;
  MT_DISPATCH_ALL_TYPES_AND_COMPLEX(in.dtype(), "unique_consecutive_cpu", [&] {
    const scalar_t* x = in.data<scalar_t>();
    if (!out.defined()) {
      for (int64_t i = 1; i < n; ++i) k += x[i] != x[i - 1] ? 1 : 0;
      return;
    }
    scalar_t* o = out.data<scalar_t>();
    o[0] = x[0];
    for (int64_t i = 1; i < n; ++i)
      if (x[i] != x[i - 1]) o[k++] = x[i];
  });
  return k;
}

}  // namespace

MT_REGISTER_KERNEL(sort_stub, CPU, &sort_cpu);
MT_REGISTER_KERNEL(mode_stub, CPU, &mode_cpu);
MT_REGISTER_KERNEL(select_stub, CPU, &select_cpu);
MT_REGISTER_KERNEL(triangle_stub, CPU, &triangle_cpu);
MT_REGISTER_KERNEL(searchsorted_stub, CPU, &searchsorted_cpu);
MT_REGISTER_KERNEL(histogram_stub, CPU, &histogram_cpu);
MT_REGISTER_KERNEL(unique_consecutive_stub, CPU, &unique_consecutive_cpu);

}  // namespace mt
