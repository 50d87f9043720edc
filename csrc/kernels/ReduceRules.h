// The semantics every reduction shares across devices (NaN propagation, which index an arg-reduction returns,
// the variance divisor), written once for host and device; the CPU loops and the CUDA reducers both call
// these, so the two cannot drift (PyTorch keeps the same rules in SharedReduceOps.h).
#pragma once
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/Macros.h"

namespace mt {
namespace reduce_rules {

template <typename T>
MT_HD_INLINE bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return v != v;
  else
    return false;
}

// The identity of a max (is_max) or min: -inf/+inf for floats, the type's extremes otherwise.
template <typename A>
MT_HD_INLINE A extremum_identity(bool is_max) {
  if constexpr (std::numeric_limits<A>::has_infinity)
    return is_max ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
  else
    return is_max ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
}

// amax/amin: NaN wins, as in PyTorch (and unlike std::max, which drops a NaN in its second argument).
template <typename A>
MT_HD_INLINE A combine_extremum(A a, A b, bool is_max) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  return (is_max ? b > a : b < a) ? b : a;
}

// The same rule as a running update, in the branch-free form that vectorizes: a NaN already in m stays,
// since v > NaN and v != v are both false for a number v.
template <typename A>
MT_HD_INLINE A accumulate_extremum(A m, A v, bool is_max) {
  return ((is_max ? v > m : v < m) || is_nan(v)) ? v : m;
}

// cummax/cummin: does `later` take the running extremum's place? Unlike arg_replaces a later equal value
// does (PyTorch's >= / <=), and NaN beats every number, so after a NaN only a later NaN moves the index.
template <bool IsMax, typename A>
MT_HD_INLINE bool cum_replaces(A best, A later) {
  return is_nan(later) || (!is_nan(best) && (IsMax ? later >= best : later <= best));
}

// argmax/argmin and max/min along a dim: does `later` (a value at a larger index) replace `best`? Only when
// strictly better or NaN where best is not, so among ties and among NaNs the first index wins.
template <typename A>
MT_HD_INLINE bool arg_replaces(A best, A later, bool is_max) {
  return !is_nan(best) && ((is_max ? later > best : later < best) || is_nan(later));
}

// var/std divide the sum of squared deviations by max(0, n - correction): 0/0 gives NaN and x/0 gives inf,
// as in PyTorch, never a negative variance.
template <typename A>
MT_HD_INLINE A var_from_m2(A m2, int64_t n, double correction) {
  A dof = static_cast<A>(n) - static_cast<A>(correction);
  return m2 / (dof > A(0) ? dof : A(0));
}

// mode over a sorted row (A: the opmath type): the last index of the first longest run of equal values. NaNs
// (sorted last) count as equal to each other, so a mostly-NaN row's mode is NaN; PyTorch leaves NaN's mode
// unspecified (its comparator is no strict weak order with NaN) and usually returns that.
template <typename A, typename T>
MT_HD_INLINE int64_t mode_run_end(const T* row, int64_t n) {
  int64_t best = 0, best_len = 0, run = 0;
  for (int64_t j = 0; j < n; ++j) {
    ++run;
    if (j + 1 < n) {
      const A a = static_cast<A>(row[j]), b = static_cast<A>(row[j + 1]);
      if (a == b || (is_nan(a) && is_nan(b))) continue;
    }
    if (run > best_len) {
      best_len = run;
      best = j;
    }
    run = 0;
  }
  return best;
}

}  // namespace reduce_rules
}  // namespace mt
