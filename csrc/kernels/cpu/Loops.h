// Inner loops for CPU elementwise kernels: a dense path the compiler vectorizes, a scalar-operand path,
// and a generic strided path. Functors receive and return opmath values (float for half/bfloat16).
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/TensorIterator.h"

namespace mt {

// The dense loops read a bool operand through uint8_t (a bool tensor holds 0 or 1): GCC has no vector type
// for bool, so a bool load keeps the whole loop scalar (where and masked_fill ran at 1/8 of add's speed).
template <typename T>
using vload_t = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

// The dense loops below are compiled twice: for the baseline (SSE2, four floats a step, selects as three
// logic operations) and with AVX2 (eight, vblendvps/vmaxps), and run the AVX2 copy where the CPU has it and
// MINITORCH_CPU_CAPABILITY allows it. Plain IEEE operations without FMA: both copies give the same bits. The
// baseline copy alone runs these loops at a fraction of PyTorch's speed. Nothing compiled for AVX2 can
// reach baseline code: the AVX2 copy is a function of its own (target attribute), and what it does not
// inline is called in its baseline form.
#if defined(__x86_64__) && defined(__GNUC__) && defined(MINITORCH_WITH_CPU_VEC)
#define MT_LOOPS_AVX2 1
bool loops_use_avx2();  // kernels/cpu/elementwise.cpp

template <typename Body>
__attribute__((target("avx2"))) void dense_for_avx2(int64_t n, Body body) {
  for (int64_t i = 0; i < n; ++i) body(i);
}
template <typename Row>
__attribute__((target("avx2"))) void rows_for_avx2(int64_t rows, Row row) {
  for (int64_t r = 0; r < rows; ++r) row(r);
}
template <typename Body>
__attribute__((target("avx2"))) void dense_for_ivdep_avx2(int64_t n, Body body) {
#pragma GCC ivdep
  for (int64_t i = 0; i < n; ++i) body(i);
}
#endif

// The OR of n values' bits (T float or double read as a same-width unsigned integer): a sign test of a block,
// one vectorized integer reduction.
template <typename T>
using bits_t = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
template <typename T>
__attribute__((always_inline)) inline bits_t<T> or_bits_impl(const T* p, int64_t n) {
  bits_t<T> acc = 0;
  for (int64_t i = 0; i < n; ++i) {
    bits_t<T> u;
    std::memcpy(&u, p + i, sizeof(u));
    acc |= u;
  }
  return acc;
}
#ifdef MT_LOOPS_AVX2
template <typename T>
__attribute__((target("avx2"))) bits_t<T> or_bits_avx2(const T* p, int64_t n) {
  return or_bits_impl(p, n);
}
#endif
template <typename T>
inline bits_t<T> or_bits(const T* p, int64_t n) {
#ifdef MT_LOOPS_AVX2
  if (loops_use_avx2()) return or_bits_avx2(p, n);
#endif
  return or_bits_impl(p, n);
}
// o[i] = p[i] * s and the OR of p's bits in one pass (o and p distinct): elu's all-positive blocks.
template <typename T>
__attribute__((always_inline)) inline bits_t<T> scale_or_bits_impl(T* o, const T* p, int64_t n, T s) {
  bits_t<T> acc = 0;
#pragma GCC ivdep
  for (int64_t i = 0; i < n; ++i) {
    bits_t<T> u;
    std::memcpy(&u, p + i, sizeof(u));
    acc |= u;
    o[i] = p[i] * s;
  }
  return acc;
}
#ifdef MT_LOOPS_AVX2
template <typename T>
__attribute__((target("avx2"))) bits_t<T> scale_or_bits_avx2(T* o, const T* p, int64_t n, T s) {
  return scale_or_bits_impl(o, p, n, s);
}
#endif
template <typename T>
inline bits_t<T> scale_or_bits(T* o, const T* p, int64_t n, T s) {
#ifdef MT_LOOPS_AVX2
  if (loops_use_avx2()) return scale_or_bits_avx2(o, p, n, s);
#endif
  return scale_or_bits_impl(o, p, n, s);
}

// body(i) for i in [0, n), i independent of each other. `body` is taken by value: a local copy of the
// captured pointers and functor, which no store through an output pointer can alias (captured by reference,
// a bool or uint8 output would force a reload of each every element and keep the loop scalar).
template <typename Body>
inline void dense_for(int64_t n, Body body) {
#ifdef MT_LOOPS_AVX2
  if (loops_use_avx2()) return dense_for_avx2(n, body);
#endif
  for (int64_t i = 0; i < n; ++i) body(i);
}
// row(r) for r in [0, rows), each row a dense loop of its own: the rows stay inside one vector-compiled call
// (TensorIter::for_each_rows), where calling dense_for per row paid the dispatch on every short row.
template <typename Row>
inline void rows_for(int64_t rows, Row row) {
#ifdef MT_LOOPS_AVX2
  if (loops_use_avx2()) return rows_for_avx2(rows, row);
#endif
  for (int64_t r = 0; r < rows; ++r) row(r);
}
// The same where the output may be exactly an input (masked_fill_ writes self): element i reads only index i,
// which the compiler's overlap check cannot see, so it would keep the loop scalar.
template <typename Body>
inline void dense_for_ivdep(int64_t n, Body body) {
#ifdef MT_LOOPS_AVX2
  if (loops_use_avx2()) return dense_for_ivdep_avx2(n, body);
#endif
#pragma GCC ivdep
  for (int64_t i = 0; i < n; ++i) body(i);
}

template <typename out_t, typename in_t, typename F>
void cpu_unary_loop(const TensorIter& it, F f, int64_t grain = kGrainSize) {
  using op_t = opmath_t<in_t>;
  it.for_each(
      [&](char** data, const int64_t* st, int64_t n) {
        // a local copy of the functor: `f` is captured by reference, and stores through `out` could alias it,
        // so its fields (softplus's beta, leaky_relu's slope) would be reloaded every element and the loop
        // would stay scalar
        const F fn = f;
        out_t* out = reinterpret_cast<out_t*>(data[0]);
        const vload_t<in_t>* a = reinterpret_cast<const vload_t<in_t>*>(data[1]);
        if (st[0] == sizeof(out_t) && st[1] == sizeof(in_t)) {
          dense_for(n, [=](int64_t i) {
            out[i] = static_cast<out_t>(fn(static_cast<op_t>(static_cast<in_t>(a[i]))));
          });
        } else {
          for (int64_t i = 0; i < n; ++i)
            *reinterpret_cast<out_t*>(data[0] + i * st[0]) = static_cast<out_t>(
                fn(static_cast<op_t>(*reinterpret_cast<const in_t*>(data[1] + i * st[1]))));
        }
      },
      grain);
}

template <typename out_t, typename in_t, typename F>
void cpu_binary_loop(const TensorIter& it, F f, int64_t grain = kGrainSize) {
  using op_t = opmath_t<in_t>;
  using v_t = vload_t<in_t>;
  it.for_each_rows(
      [&](char** data, const int64_t* st, int64_t n, int64_t rows, const int64_t* rs) {
        const F fn = f;  // a local copy, as cpu_unary_loop's
        auto ld = [](v_t v) { return static_cast<op_t>(static_cast<in_t>(v)); };
        char* const d0 = data[0];
        const char* const d1 = data[1];
        const char* const d2 = data[2];
        const int64_t r0 = rs[0], r1 = rs[1], r2 = rs[2];
        // the three dense shapes, each over its rows in one vector-compiled call
        if (st[0] == sizeof(out_t) && st[1] == sizeof(in_t) && st[2] == sizeof(in_t)) {
          rows_for(rows, [=](int64_t r) {
            out_t* out = reinterpret_cast<out_t*>(d0 + r * r0);
            const v_t* a = reinterpret_cast<const v_t*>(d1 + r * r1);
            const v_t* b = reinterpret_cast<const v_t*>(d2 + r * r2);
            for (int64_t i = 0; i < n; ++i) out[i] = static_cast<out_t>(fn(ld(a[i]), ld(b[i])));
          });
          return;
        }
        if (st[0] == sizeof(out_t) && st[1] == sizeof(in_t) && st[2] == 0) {
          rows_for(rows, [=](int64_t r) {
            out_t* out = reinterpret_cast<out_t*>(d0 + r * r0);
            const v_t* a = reinterpret_cast<const v_t*>(d1 + r * r1);
            const op_t bv = ld(*reinterpret_cast<const v_t*>(d2 + r * r2));
            for (int64_t i = 0; i < n; ++i) out[i] = static_cast<out_t>(fn(ld(a[i]), bv));
          });
          return;
        }
        if (st[0] == sizeof(out_t) && st[1] == 0 && st[2] == sizeof(in_t)) {
          rows_for(rows, [=](int64_t r) {
            out_t* out = reinterpret_cast<out_t*>(d0 + r * r0);
            const op_t av = ld(*reinterpret_cast<const v_t*>(d1 + r * r1));
            const v_t* b = reinterpret_cast<const v_t*>(d2 + r * r2);
            for (int64_t i = 0; i < n; ++i) out[i] = static_cast<out_t>(fn(av, ld(b[i])));
          });
          return;
        }
        for (int64_t r = 0; r < rows; ++r) {
          char* const o = d0 + r * r0;
          const char* const a = d1 + r * r1;
          const char* const b = d2 + r * r2;
          for (int64_t i = 0; i < n; ++i)
            *reinterpret_cast<out_t*>(o + i * st[0]) =
                static_cast<out_t>(fn(static_cast<op_t>(*reinterpret_cast<const in_t*>(a + i * st[1])),
                                      static_cast<op_t>(*reinterpret_cast<const in_t*>(b + i * st[2]))));
        }
      },
      grain);
}

// Three inputs of possibly different types (where: bool, T, T; clamp: T, T, T).
template <typename out_t, typename a_t, typename b_t, typename c_t, typename F>
void cpu_ternary_loop(const TensorIter& it, F f, int64_t grain = kGrainSize) {
  it.for_each(
      [&](char** data, const int64_t* st, int64_t n) {
        // dense output and first input, the others dense or one broadcast value (masked_fill's value, clamp's
        // scalar bounds, where with a scalar): typed loops the compiler turns into selects instead of a
        // data-dependent branch per element
        out_t* o = reinterpret_cast<out_t*>(data[0]);
        const vload_t<a_t>* a = reinterpret_cast<const vload_t<a_t>*>(data[1]);
        const vload_t<b_t>* b = reinterpret_cast<const vload_t<b_t>*>(data[2]);
        const vload_t<c_t>* c = reinterpret_cast<const vload_t<c_t>*>(data[3]);
        const F fn = f;  // copied into each dense loop's body (dense_for_ivdep: o may be exactly c)
        if (st[0] == sizeof(out_t) && st[1] == sizeof(a_t)) {
          const bool bd = st[2] == sizeof(b_t), cd = st[3] == sizeof(c_t);
          if (bd && cd)
            return dense_for_ivdep(n, [=](int64_t i) {
              o[i] = fn(static_cast<a_t>(a[i]), static_cast<b_t>(b[i]), static_cast<c_t>(c[i]));
            });
          if (st[2] == 0 && cd) {
            const b_t bv = static_cast<b_t>(*b);
            return dense_for_ivdep(
                n, [=](int64_t i) { o[i] = fn(static_cast<a_t>(a[i]), bv, static_cast<c_t>(c[i])); });
          }
          if (bd && st[3] == 0) {
            const c_t cv = static_cast<c_t>(*c);
            return dense_for_ivdep(
                n, [=](int64_t i) { o[i] = fn(static_cast<a_t>(a[i]), static_cast<b_t>(b[i]), cv); });
          }
          if (st[2] == 0 && st[3] == 0) {
            const b_t bv = static_cast<b_t>(*b);
            const c_t cv = static_cast<c_t>(*c);
            return dense_for_ivdep(n, [=](int64_t i) { o[i] = fn(static_cast<a_t>(a[i]), bv, cv); });
          }
        }
        for (int64_t i = 0; i < n; ++i)
          *reinterpret_cast<out_t*>(data[0] + i * st[0]) =
              f(*reinterpret_cast<const a_t*>(data[1] + i * st[1]),
                *reinterpret_cast<const b_t*>(data[2] + i * st[2]),
                *reinterpret_cast<const c_t*>(data[3] + i * st[3]));
      },
      grain);
}

}  // namespace mt
