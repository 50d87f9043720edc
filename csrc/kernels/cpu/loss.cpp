// CPU kernels of the fused class losses (cross_entropy, nll_loss), huber/smooth_l1 and CTC: layout and
// semantics in ops/loss.h.
#include "ops/loss.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/Parallel.h"
#include "core/ScalarType.h"
#include "kernels/cpu/ParallelRows.h"
#include "kernels/cpu/ReduceUtils.h"
#include "kernels/cpu/VecExp.h"
#include "kernels/cpu/VecUnary.h"

namespace mt {
namespace {

// float32 rows with contiguous classes (the common case) go through vector loops. On AVX2+FMA machines
// (checked once at run time; the wheel itself targets baseline x86-64) an intrinsics exp, measured 4-5x
// faster here than the auto-vectorized VecExpF loop, which remains the portable fallback.
constexpr int kLanes = 16;

float row_max_portable(const float* x, int64_t n) {
  float m[kLanes];
  for (int j = 0; j < kLanes; ++j) m[j] = -std::numeric_limits<float>::infinity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) m[j] = std::max(m[j], x[i + j]);
  for (; i < n; ++i) m[0] = std::max(m[0], x[i]);
  for (int j = 1; j < kLanes; ++j) m[0] = std::max(m[0], m[j]);
  return m[0];
}

float sum_exp_portable(const float* x, int64_t n, float shift) {
  VecExpF f;
  float acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) acc[j] += f(x[i + j] - shift);
  float tail = 0;
  for (; i < n; ++i) tail += f(x[i] - shift);
  for (int w = kLanes / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  return acc[0] + tail;
}

void scaled_exp_portable(float* out, const float* x, int64_t n, float shift, float k) {
  VecExpF f;
  for (int64_t i = 0; i < n; ++i) out[i] = k * f(x[i] - shift);
}

#ifdef MT_HAVE_AVX2_EXP
#define MT_LOSS_AVX2 1

MT_AVX2 float row_max_avx2(const float* x, int64_t n) {
  __m256 m0 = _mm256_set1_ps(-std::numeric_limits<float>::infinity()), m1 = m0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    m0 = _mm256_max_ps(m0, _mm256_loadu_ps(x + i));
    m1 = _mm256_max_ps(m1, _mm256_loadu_ps(x + i + 8));
  }
  alignas(32) float b[8];
  _mm256_store_ps(b, _mm256_max_ps(m0, m1));
  float m = b[0];
  for (int j = 1; j < 8; ++j) m = std::max(m, b[j]);
  for (; i < n; ++i) m = std::max(m, x[i]);
  return m;
}

MT_AVX2 float sum_exp_avx2(const float* x, int64_t n, float shift) {
  const __m256 s = _mm256_set1_ps(shift);
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    a0 = _mm256_add_ps(a0, exp256(_mm256_sub_ps(_mm256_loadu_ps(x + i), s)));
    a1 = _mm256_add_ps(a1, exp256(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), s)));
  }
  alignas(32) float b[8];
  _mm256_store_ps(b, _mm256_add_ps(a0, a1));
  float r = 0;
  for (int j = 0; j < 8; ++j) r += b[j];
  VecExpF f;
  for (; i < n; ++i) r += f(x[i] - shift);
  return r;
}

MT_AVX2 void scaled_exp_avx2(float* out, const float* x, int64_t n, float shift, float k) {
  const __m256 s = _mm256_set1_ps(shift), kv = _mm256_set1_ps(k);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_mul_ps(kv, exp256(_mm256_sub_ps(_mm256_loadu_ps(x + i), s))));
  VecExpF f;
  for (; i < n; ++i) out[i] = k * f(x[i] - shift);
}

const bool kHasAvx2 = cpu_has_avx2_fma();
#endif

// Max of a row. A NaN is skipped here but reaches the result through the sum of exps below.
float row_max_f32(const float* x, int64_t n) {
#ifdef MT_LOSS_AVX2
  if (kHasAvx2) return row_max_avx2(x, n);
#endif
  return row_max_portable(x, n);
}

float sum_exp_f32(const float* x, int64_t n, float shift) {
#ifdef MT_LOSS_AVX2
  if (kHasAvx2) return sum_exp_avx2(x, n, shift);
#endif
  return sum_exp_portable(x, n, shift);
}

// out = k * exp(x - shift)
void scaled_exp_f32(float* out, const float* x, int64_t n, float shift, float k) {
  if (const vec::Table* t = vec::unary_table(); t && t->scaled_exp_f32)
    return t->scaled_exp_f32(out, x, n, shift, k);
#ifdef MT_LOSS_AVX2
  if (kHasAvx2) return scaled_exp_avx2(out, x, n, shift, k);
#endif
  scaled_exp_portable(out, x, n, shift, k);
}

// Per row of a cross entropy with class-index targets t (weights w, smoothing eps over C classes):
//   loss = (1 - eps) w_t (lse - x_t) + eps / C * sum_c w_c (lse - x_c)
// and d loss / d x_c = p_c * A - a_c with a_c = (1 - eps) w_t [c == t] + eps / C * w_c, A = sum_c a_c.
// With probabilities t_c (smoothed t'_c = (1 - eps) t_c + eps / C): loss = sum_c w_c t'_c (lse - x_c),
// a_c = w_c t'_c. nll_loss is loss = -w_t x_t. Ignored rows contribute nothing, to the loss or the mean's
// denominator (sum of w_t over rows kept; the row count for probabilities).
// A probability row's two sums, the target weights wt_c = w_c ((1 - eps) t_c + eps / C) and the loss
// sum_c wt_c ((m - x_c) + l), in kLanes partial sums each (the compiler's vector lanes): one running sum per
// quantity was an add-latency chain per class, 0.8 ns a value, most of the loss's time at 256 classes.
template <typename T, bool kWeight>
void prob_row_sums_impl(const T* tr, const T* xr, const T* w, int64_t C, T m, T l, T eps, T eps_c, T* swt,
                        T* loss) {
  T aw[kLanes] = {}, al[kLanes] = {};
  auto term = [&](int64_t c, T& sw, T& sl) {
    const T wt = (kWeight ? w[c] : T(1)) * ((T(1) - eps) * tr[c] + eps_c);
    sw += wt;
    sl += wt * ((m - xr[c]) + l);
  };
  int64_t c = 0;
  for (; c + kLanes <= C; c += kLanes)
    for (int j = 0; j < kLanes; ++j) term(c + j, aw[j], al[j]);
  for (int j = 0; c < C; ++c, ++j) term(c, aw[j], al[j]);
  for (int h = kLanes / 2; h > 0; h /= 2)
    for (int j = 0; j < h; ++j) {
      aw[j] += aw[j + h];
      al[j] += al[j + h];
    }
  *swt = aw[0];
  *loss = al[0];
}
template <typename T>
void prob_row_sums(const T* tr, const T* xr, const T* w, int64_t C, T m, T l, T eps, T eps_c, T* swt,
                   T* loss) {
  if (w)
    prob_row_sums_impl<T, true>(tr, xr, w, C, m, l, eps, eps_c, swt, loss);
  else
    prob_row_sums_impl<T, false>(tr, xr, w, C, m, l, eps, eps_c, swt, loss);
}

// lse = m + ls (m the row's max, s its sum of exp(x - m), ls = log s) is never formed: for logits of a large
// magnitude m + ls rounds to m (float32 1e30 + log 2) and lse - x_c loses ls, where PyTorch's log_softmax is
// (x_c - m) - ls. So lse - x_c is (m - x_c) + ls, term by term (ls sum_c u_c apart gave 0 * inf = NaN for an
// infinite target where PyTorch's terms give inf), and the backward's p_c A is exp(x_c - m) (A / s): the
// stats are (m, ls, A / s) per row.
// (exp((x_c - m) - ls) A, a second subtraction per value, cost the short rows' backward 10 %.)
template <typename T>
struct RowResult {
  opmath_t<T> loss, weight, m, ls, a_s;  // a_s: A / s
};

template <typename T>
RowResult<T> class_loss_row(const T* x, const int64_t* ti, const T* tp, const T* w, int64_t r, int64_t C,
                            int64_t stride, const ClassLossOptions& opt) {
  using op_t = opmath_t<T>;
  auto X = [&](int64_t c) { return static_cast<op_t>(x[c * stride]); };
  auto W = [&](int64_t c) { return w ? static_cast<op_t>(w[c]) : op_t(1); };
  RowResult<T> res{0, 0, 0, 0, 0};
  int64_t t = 0;
  if (opt.kind != ClassLossKind::ce_prob) {
    t = ti[r];
    if (t == opt.ignore_index) return res;
    MT_CHECK_INDEX(t >= 0 && t < C, "Target ", t, " is out of bounds.");
    res.weight = W(t);
  }
  if (opt.kind == ClassLossKind::nll) {
    res.loss = -res.weight * X(t);
    return res;
  }
  // logsumexp: a NaN max propagates (as in softmax); an all -inf row gives -inf - (-inf) = NaN
  op_t m = -std::numeric_limits<op_t>::infinity(), s = 0;
  bool done = false;
  if constexpr (std::is_same_v<T, float>) {
    // long rows through the vector loops; short ones (the tutorials' 2 classes) are faster with libm's expf
    // the vector table (AVX2/AVX-512, a padded vector for the tail) from a few classes on
    const vec::Table* vt = vec::unary_table();
    if (stride == 1 && vt && vt->max_sum_exp_f32 && C >= 8) {
      s = vt->max_sum_exp_f32(x, C, &m);
      done = true;
    } else if (stride == 1 && C >= 2 * kLanes) {
      m = row_max_f32(x, C);
      s = sum_exp_f32(x, C, m);
      done = true;
    }
  }
  if (!done) {
    for (int64_t c = 0; c < C; ++c) {
      op_t v = X(c);
      m = (v > m || v != v) ? v : m;
    }
    for (int64_t c = 0; c < C; ++c) s += std::exp(X(c) - m);
  }
  const op_t ls = std::log(s);
  res.m = m;
  res.ls = ls;
  const op_t eps = static_cast<op_t>(opt.label_smoothing);
  const op_t eps_c = C > 0 ? eps / static_cast<op_t>(C) : op_t(0);
  if (opt.kind == ClassLossKind::ce_index) {
    op_t loss = (op_t(1) - eps) * res.weight * ((m - X(t)) + ls);
    op_t a = (op_t(1) - eps) * res.weight;
    if (eps > 0) {
      op_t sw = 0, swl = 0;
      for (int64_t c = 0; c < C; ++c) {
        sw += W(c);
        swl += W(c) * ((m - X(c)) + ls);
      }
      loss += eps_c * swl;
      a += eps_c * sw;
    }
    res.loss = loss;
    res.a_s = a / s;
  } else {
    op_t swt = 0, loss = 0;
    if constexpr (std::is_same_v<T, op_t>) {
      if (stride == 1) {
        prob_row_sums(tp, x, w, C, m, ls, eps, eps_c, &swt, &loss);
        res.loss = loss;
        res.a_s = swt / s;
        res.weight = 1;
        return res;
      }
    }
    for (int64_t c = 0; c < C; ++c) {
      op_t wt = W(c) * ((op_t(1) - eps) * static_cast<op_t>(tp[c * stride]) + eps_c);
      swt += wt;
      loss += wt * ((m - X(c)) + ls);
    }
    res.loss = loss;
    res.a_s = swt / s;
    res.weight = 1;
  }
  return res;
}

// Short class rows (C up to kShortClasses, contiguous classes, float or double, the vector table's exp and
// log present): rows go in blocks of about kBlockElems values, each step one pass over the block (row maxima,
// x - max, one exp call, row sums, one log call over the block's sums) instead of a row at a time, whose
// calls into the table, libm's logf and per-row setup cost 33 ns a 16-class row (PyTorch 18-22).
constexpr int64_t kShortClasses = 256;
constexpr int64_t kBlockElems = 2048;

// Max of a row, NaN skipped (a NaN reaches the loss through its exp, as on the table's path).
template <typename T>
T row_max_short(const T* p, int64_t n) {
  constexpr int W = 16 / static_cast<int>(sizeof(T));
  typedef T vec __attribute__((vector_size(16)));
  T m = -std::numeric_limits<T>::infinity();
  int64_t i = 0;
  if (n >= W) {
    vec mv, a;
    std::memcpy(&mv, p, 16);
    for (i = W; i + W <= n; i += W) {
      std::memcpy(&a, p + i, 16);
      mv = a > mv ? a : mv;
    }
    for (int j = 0; j < W; ++j) m = mv[j] > m ? mv[j] : m;
  }
  for (; i < n; ++i) m = p[i] > m ? p[i] : m;
  return m;
}

template <typename T>
struct ShortLoops {
  void (*exp)(T*, const T*, int64_t);
  void (*log)(T*, const T*, int64_t);
};

// The table's exp and log for T, or nulls (no table, or half types).
template <typename T>
ShortLoops<T> short_loops() {
  const vec::Table* vt = vec::unary_table();
  if constexpr (std::is_same_v<T, float>) {
    if (vt) return {vt->f32[static_cast<int>(vec::Fn::exp)], vt->f32[static_cast<int>(vec::Fn::log)]};
  } else if constexpr (std::is_same_v<T, double>) {
    if (vt) return {vt->f64[static_cast<int>(vec::Fn::exp)], vt->f64[static_cast<int>(vec::Fn::log)]};
  }
  return {nullptr, nullptr};
}

// Rows [r0, r1) of a cross entropy, classes contiguous (class indices, smoothed or not, or probabilities tp):
// emit(r, RowResult), the per-row terms class_loss_row computes, from the block's logsumexp.
template <typename T, typename Emit>
void ce_short_rows(const T* x, const int64_t* ti, const T* tp, const T* w, int64_t r0, int64_t r1, int64_t C,
                   const ClassLossOptions& opt, const ShortLoops<T>& L, const Emit& emit) {
  const int64_t B = std::max<int64_t>(1, kBlockElems / C);
  alignas(64) T buf[kBlockElems];  // C >= 2: nb <= kBlockElems / 2
  alignas(64) T mx[kBlockElems / 2], ls[kBlockElems / 2], is[kBlockElems / 2];
  const T eps = static_cast<T>(opt.label_smoothing), eps_c = eps / static_cast<T>(C);
  auto W = [&](int64_t c) { return w ? w[c] : T(1); };
  for (int64_t rb = r0; rb < r1; rb += B) {
    const int64_t nb = std::min(B, r1 - rb);
    const T* xb = x + rb * C;
    for (int64_t i = 0; i < nb; ++i) mx[i] = row_max_short(xb + i * C, C);
    for (int64_t i = 0; i < nb; ++i)
      for (int64_t c = 0; c < C; ++c) buf[i * C + c] = xb[i * C + c] - mx[i];
    L.exp(buf, buf, nb * C);
    for (int64_t i = 0; i < nb; ++i) ls[i] = static_cast<T>(cpu_reduce::block_sum_vec(buf + i * C, C));
    for (int64_t i = 0; i < nb; ++i) is[i] = T(1) / ls[i];
    L.log(ls, ls, nb);
    for (int64_t i = 0; i < nb; ++i) {
      const int64_t r = rb + i;
      const T m = mx[i], l = ls[i];
      const T* xr = xb + i * C;
      if (tp) {
        T swt, loss;
        prob_row_sums(tp + r * C, xr, w, C, m, l, eps, eps_c, &swt, &loss);
        emit(r, RowResult<T>{loss, 1, m, l, swt * is[i]});
        continue;
      }
      const int64_t t = ti[r];
      if (t == opt.ignore_index) {
        emit(r, RowResult<T>{0, 0, 0, 0, 0});
        continue;
      }
      MT_CHECK_INDEX(t >= 0 && t < C, "Target ", t, " is out of bounds.");
      const T wt = W(t);
      if (eps == T(0)) {
        emit(r, RowResult<T>{wt * ((m - xr[t]) + l), wt, m, l, wt * is[i]});
        continue;
      }
      T sw = 0, swl = 0;
      for (int64_t c = 0; c < C; ++c) {
        sw += W(c);
        swl += W(c) * ((m - xr[c]) + l);
      }
      emit(r, RowResult<T>{(T(1) - eps) * wt * ((m - xr[t]) + l) + eps_c * swl, wt, m, l,
                           ((T(1) - eps) * wt + eps_c * sw) * is[i]});
    }
  }
}

// A block of nb positions of one n of an [N, C, d...] cross entropy (inner > 1): their classes `inner` apart,
// the positions next to each other, read in place with the positions as the lanes (classes' maxima, x - max
// into a buffer, one exp call, the sums, one log call over the block, the loss terms), nb * C <= kBlockElems.
// The per-row terms of ce_short_rows, each sum over the classes in class order; emit(i, RowResult) per
// position, or, for probabilities where only the reduced loss is wanted, sums[0] and sums[1] (the running
// loss and weight) added to in place. Gathering each position's classes into a row first (a tile transpose
// for the row loop) cost the loss as much as the rest, and the row loop's per-row sums ran one class after
// the other.
template <typename T, typename Emit>
void ce_short_cols(const T* x, const int64_t* ti, const T* tp, const T* w, int64_t nb, int64_t inner,
                   int64_t C, const ClassLossOptions& opt, const ShortLoops<T>& L, const Emit& emit,
                   double* sums) {
  if (nb <= 0) return;
  // buf: x - m, then (after the sums of exps) the per-position sums of target weights
  alignas(64) T buf[kBlockElems];  // C >= 2: nb <= kBlockElems / 2
  alignas(64) T mx[kBlockElems / 2], ls[kBlockElems / 2], is[kBlockElems / 2], s1[kBlockElems / 2];
  T* s0 = buf;  // C >= 2
  const T eps = static_cast<T>(opt.label_smoothing), eps_c = eps / static_cast<T>(C);
  auto W = [&](int64_t c) { return w ? w[c] : T(1); };
  for (int64_t i = 0; i < nb; ++i) mx[i] = -std::numeric_limits<T>::infinity();
  for (int64_t c = 0; c < C; ++c) {  // maxima, NaN skipped (row_max_short's)
    const T* xc = x + c * inner;
    for (int64_t i = 0; i < nb; ++i) mx[i] = xc[i] > mx[i] ? xc[i] : mx[i];
  }
  for (int64_t c = 0; c < C; ++c) {
    const T* xc = x + c * inner;
    for (int64_t i = 0; i < nb; ++i) buf[c * nb + i] = xc[i] - mx[i];
  }
  L.exp(buf, buf, nb * C);
  for (int64_t i = 0; i < nb; ++i) ls[i] = buf[i];
  for (int64_t c = 1; c < C; ++c)
    for (int64_t i = 0; i < nb; ++i) ls[i] += buf[c * nb + i];
  for (int64_t i = 0; i < nb; ++i) is[i] = T(1) / ls[i];
  L.log(ls, ls, nb);
  if (tp) {  // s0 = sum_c w_c t'_c and the loss s1 = sum_c w_c t'_c ((m - x_c) + ls)
    for (int64_t i = 0; i < nb; ++i) s0[i] = s1[i] = T(0);
    for (int64_t c = 0; c < C; ++c) {
      const T* xc = x + c * inner;
      const T* tc = tp + c * inner;
      const T wc = W(c);
      if (!w && eps == T(0)) {  // w_c t'_c is t_c: the same values, two operations fewer
        for (int64_t i = 0; i < nb; ++i) {
          s0[i] += tc[i];
          s1[i] += tc[i] * ((mx[i] - xc[i]) + ls[i]);
        }
        continue;
      }
      for (int64_t i = 0; i < nb; ++i) {
        const T wt = wc * ((T(1) - eps) * tc[i] + eps_c);
        s0[i] += wt;
        s1[i] += wt * ((mx[i] - xc[i]) + ls[i]);
      }
    }
    if (sums) {  // a reduced loss without stats: the running sums here, in emit's order (emit's through
      double sl = sums[0];  // its captures stayed in memory, a tenth of the loss's time)
      for (int64_t i = 0; i < nb; ++i) sl += static_cast<double>(s1[i]);
      sums[0] = sl;
      sums[1] += static_cast<double>(nb);  // a weight of 1 per position
      return;
    }
    for (int64_t i = 0; i < nb; ++i) emit(i, RowResult<T>{s1[i], 1, mx[i], ls[i], s0[i] * is[i]});
    return;
  }
  T sw = 0;  // with smoothing: sum_c w_c, and per position sum_c w_c ((m - x_c) + ls)
  if (eps != T(0)) {
    for (int64_t c = 0; c < C; ++c) sw += W(c);
    for (int64_t i = 0; i < nb; ++i) s1[i] = T(0);
    for (int64_t c = 0; c < C; ++c) {
      const T* xc = x + c * inner;
      const T wc = W(c);
      for (int64_t i = 0; i < nb; ++i) s1[i] += wc * ((mx[i] - xc[i]) + ls[i]);
    }
  }
  for (int64_t i = 0; i < nb; ++i) {
    const int64_t t = ti[i];
    if (t == opt.ignore_index) {
      emit(i, RowResult<T>{0, 0, 0, 0, 0});
      continue;
    }
    MT_CHECK_INDEX(t >= 0 && t < C, "Target ", t, " is out of bounds.");
    const T wt = W(t), xt = x[t * inner + i];
    if (eps == T(0))
      emit(i, RowResult<T>{wt * ((mx[i] - xt) + ls[i]), wt, mx[i], ls[i], wt * is[i]});
    else
      emit(i, RowResult<T>{(T(1) - eps) * wt * ((mx[i] - xt) + ls[i]) + eps_c * s1[i], wt, mx[i], ls[i],
                           ((T(1) - eps) * wt + eps_c * sw) * is[i]});
  }
}

template <typename T>
void class_loss_forward_typed(const Tensor& out, const Tensor& stats, const Tensor& total_weight,
                              const Tensor& input, const Tensor& target, const Tensor& weight,
                              const ClassLossGeometry& g, const ClassLossOptions& opt) {
  using op_t = opmath_t<T>;
  const T* x = input.data<T>();
  const bool prob = opt.kind == ClassLossKind::ce_prob;
  const int64_t* ti = prob ? nullptr : target.data<int64_t>();
  const T* tp = prob ? target.data<T>() : nullptr;
  const T* w = weight.defined() ? weight.data<T>() : nullptr;
  T* o = out.data<T>();
  op_t* st = stats.defined() ? stats.data<op_t>() : nullptr;
  const int64_t C = g.classes, inner = g.inner, rows = g.outer * inner;
  const bool none = opt.reduction == Reduction::None;
  // Rows in fixed chunks (independent of the thread count), each chunk's sums in double, chunks added in
  // order: the reduced result is the same on any number of threads.
  const int64_t chunk = grain_for(C);
  const int64_t nchunks = (rows + chunk - 1) / chunk;
  std::vector<double> part_loss(static_cast<size_t>(none ? 0 : nchunks)),
      part_w(static_cast<size_t>(nchunks));
  ShortLoops<T> L = short_loops<T>();
  const bool short_rows = opt.kind != ClassLossKind::nll && C >= 2 && C <= kShortClasses && L.exp && L.log;
  auto run = [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      double sl = 0, sw = 0, sums[2] = {0, 0};
      auto emit = [&](int64_t r, const RowResult<T>& rr) {
        if (none)
          o[r] = static_cast<T>(rr.loss);
        else
          sl += static_cast<double>(rr.loss);
        sw += static_cast<double>(rr.weight);
        if (st) {
          st[3 * r] = rr.m;
          st[3 * r + 1] = rr.ls;
          st[3 * r + 2] = rr.a_s;
        }
      };
      const int64_t r1 = std::min(rows, (k + 1) * chunk);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        if (short_rows && inner == 1) {
          ce_short_rows(x, ti, tp, w, k * chunk, r1, C, opt, L, emit);
          if (!none) part_loss[k] = sl;
          part_w[k] = sw;
          continue;
        }
        if (short_rows) {
          // [N, C, d...]: blocks of positions within one n, read in place
          const int64_t B = std::max<int64_t>(1, kBlockElems / C);
          for (int64_t r0 = k * chunk; r0 < r1;) {
            const int64_t n = r0 / inner, i0 = r0 % inner;
            const int64_t nb = std::min(std::min(B, r1 - r0), inner - i0), base = n * C * inner + i0;
            ce_short_cols(
                x + base, prob ? nullptr : ti + r0, prob ? tp + base : nullptr, w, nb, inner, C, opt, L,
                [&](int64_t r, const RowResult<T>& rr) { emit(r0 + r, rr); }, none || st ? nullptr : sums);
            r0 += nb;
          }
          if (!none) part_loss[k] = sl + sums[0];  // (one of the two is 0: a chunk sums one way)
          part_w[k] = sw + sums[1];
          continue;
        }
      }
      for (int64_t r = k * chunk; r < r1; ++r) {
        const int64_t off = (r / inner) * C * inner + r % inner;
        emit(r, class_loss_row<T>(x + off, ti, prob ? tp + off : nullptr, w, r, C, inner, opt));
      }
      if (!none) part_loss[k] = sl;
      part_w[k] = sw;
    }
  };
  if (nchunks == 1)
    run(0, 1);
  else
    parallel_for(0, nchunks, 1, run);
  double tl = 0, tw = 0;
  for (int64_t k = 0; k < nchunks; ++k) {
    if (!none) tl += part_loss[k];
    tw += part_w[k];
  }
  if (total_weight.defined()) *total_weight.data<op_t>() = static_cast<op_t>(tw);
  if (opt.reduction == Reduction::Sum) *o = static_cast<T>(tl);
  // a mean over rows that are all ignored is 0/0 = NaN, as PyTorch's
  if (opt.reduction == Reduction::Mean) *o = static_cast<T>(tl / tw);
}

void class_loss_forward_cpu(const Tensor& out, const Tensor& stats, const Tensor& total_weight,
                            const Tensor& input, const Tensor& target, const Tensor& weight,
                            const ClassLossGeometry& g, const ClassLossOptions& opt) {
  MT_DISPATCH_FLOATING_TYPES(
      input.dtype(), opt.kind == ClassLossKind::nll ? "nll_loss" : "cross_entropy",
      [&] { class_loss_forward_typed<scalar_t>(out, stats, total_weight, input, target, weight, g, opt); });
}

template <typename T>
void class_loss_backward_typed(const Tensor& grad_input, const Tensor& grad_target, const Tensor& grad,
                               const Tensor& input, const Tensor& target, const Tensor& weight,
                               const Tensor& stats, const Tensor& total_weight, const ClassLossGeometry& g,
                               const ClassLossOptions& opt) {
  using op_t = opmath_t<T>;
  const T* x = input.data<T>();
  const bool prob = opt.kind == ClassLossKind::ce_prob;
  const int64_t* ti = prob ? nullptr : target.data<int64_t>();
  const T* tp = prob ? target.data<T>() : nullptr;
  const T* w = weight.defined() ? weight.data<T>() : nullptr;
  const T* gr = grad.data<T>();
  const op_t* st = stats.defined() ? stats.data<op_t>() : nullptr;
  T* gi = grad_input.defined() ? grad_input.data<T>() : nullptr;
  T* gt = grad_target.defined() ? grad_target.data<T>() : nullptr;
  const int64_t C = g.classes, inner = g.inner, rows = g.outer * inner;
  op_t scale0 = static_cast<op_t>(gr[0]);
  if (opt.reduction == Reduction::Mean) scale0 /= *total_weight.data<op_t>();
  const op_t eps = static_cast<op_t>(opt.label_smoothing);
  const op_t eps_c = C > 0 ? eps / static_cast<op_t>(C) : op_t(0);
  auto W = [&](int64_t c) { return w ? static_cast<op_t>(w[c]) : op_t(1); };
  auto row = [&](int64_t r) {
    const int64_t off = (r / inner) * C * inner + r % inner;
    const op_t scale = opt.reduction == Reduction::None ? static_cast<op_t>(gr[r]) : scale0;
    int64_t t = -1;
    bool ignored = false;
    if (!prob) {
      t = ti[r];
      ignored = t == opt.ignore_index;
    }
    if (opt.kind == ClassLossKind::nll || ignored) {
      if (gi) {
        for (int64_t c = 0; c < C; ++c) gi[off + c * inner] = T(0);
        if (!ignored) gi[off + t * inner] = static_cast<T>(-scale * W(t));
      }
      return;
    }
    const op_t m = st[3 * r], ls = st[3 * r + 1], a_s = st[3 * r + 2];
    if constexpr (std::is_same_v<T, float>) {
      if (inner == 1 && gi && !gt && C >= 2 * kLanes) {
        // scale * (p_c * A - a_c): the softmax part vectorized, then the target's terms
        scaled_exp_f32(gi + off, x + off, C, m, scale * a_s);
        if (prob) {
          for (int64_t c = 0; c < C; ++c)
            gi[off + c] -= scale * W(c) * ((op_t(1) - eps) * tp[off + c] + eps_c);
        } else {
          if (eps > 0)
            for (int64_t c = 0; c < C; ++c) gi[off + c] -= scale * eps_c * W(c);
          gi[off + t] -= scale * (op_t(1) - eps) * W(t);
        }
        return;
      }
    }
    for (int64_t c = 0; c < C; ++c) {
      const int64_t i = off + c * inner;
      const op_t xv = static_cast<op_t>(x[i]);
      if (gi) {
        op_t a;
        if (prob)
          a = W(c) * ((op_t(1) - eps) * static_cast<op_t>(tp[i]) + eps_c);
        else
          a = eps_c * W(c) + (c == t ? (op_t(1) - eps) * W(t) : op_t(0));
        gi[i] = static_cast<T>(scale * (std::exp(xv - m) * a_s - a));
      }
      if (gt) gt[i] = static_cast<T>(scale * (op_t(1) - eps) * W(c) * ((m - xv) + ls));
    }
  };
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    const ShortLoops<T> L = short_loops<T>();
    if (opt.kind != ClassLossKind::nll && gi && !gt && C >= 2 && C <= kShortClasses && L.exp) {
      // blocks of rows as in the forward: exp(x - m) over the block in one call, then
      // scale * (p_c * A - a_c). [N, C, d...] (inner > 1): blocks of positions within one n, worked on in
      // place with the positions as the lanes, an exp call per class (gathering them into class rows and
      // writing back, a tile transpose each way, cost 10-25 % more, with the stack's layout).
      const int64_t B = std::max<int64_t>(1, kBlockElems / C);
      // row r's exp(x - m) in g[0, C) becomes its gradient; tr[c * ts]: its target probabilities
      auto fix_row = [&](int64_t r, T* g, const T* tr, int64_t ts) {
        const op_t scale = opt.reduction == Reduction::None ? static_cast<op_t>(gr[r]) : scale0;
        if (prob) {
          const op_t k = scale * st[3 * r + 2];
          for (int64_t c = 0; c < C; ++c)
            g[c] = static_cast<T>(g[c] * k - scale * (W(c) * ((op_t(1) - eps) * tr[c * ts] + eps_c)));
          return;
        }
        const int64_t t = ti[r];
        if (t == opt.ignore_index) {
          for (int64_t c = 0; c < C; ++c) g[c] = T(0);
          return;
        }
        const op_t k = scale * st[3 * r + 2];
        for (int64_t c = 0; c < C; ++c) g[c] *= k;
        if (eps > 0)
          for (int64_t c = 0; c < C; ++c) g[c] -= scale * eps_c * W(c);
        g[t] -= scale * (op_t(1) - eps) * W(t);
      };
      const int64_t per_n = inner == 1 ? 0 : (inner + B - 1) / B;
      const int64_t nblocks = inner == 1 ? (rows + B - 1) / B : g.outer * per_n;
      parallel_rows(nblocks, B * C, [&](int64_t b, int64_t e) {
        alignas(64) T mv[kBlockElems / 2], sv[kBlockElems / 2],
            kv[kBlockElems / 2];  // C >= 2: nb <= kBlockElems / 2
        for (int64_t blk = b; blk < e; ++blk) {
          if (inner == 1) {
            const int64_t rb = blk * B, nb = std::min(B, rows - rb);
            T* gb = gi + rb * C;
            const T* xb = x + rb * C;
            for (int64_t i = 0; i < nb; ++i) {
              const T m = st[3 * (rb + i)];
              for (int64_t c = 0; c < C; ++c) gb[i * C + c] = xb[i * C + c] - m;
            }
            L.exp(gb, gb, nb * C);
            for (int64_t i = 0; i < nb; ++i)
              fix_row(rb + i, gb + i * C, prob ? tp + (rb + i) * C : nullptr, 1);
            continue;
          }
          const int64_t n = blk / per_n, i0 = (blk % per_n) * B, nb = std::min(B, inner - i0);
          const int64_t r0 = n * inner + i0, base = n * C * inner + i0;
          // in place, the positions as the lanes (fix_row's terms in its order, so the same values): per
          // position its max, scale and scale * A / s, then per class exp(x - m) and the target's terms
          for (int64_t i = 0; i < nb; ++i) {
            mv[i] = st[3 * (r0 + i)];
            sv[i] = opt.reduction == Reduction::None ? static_cast<T>(gr[r0 + i]) : static_cast<T>(scale0);
            kv[i] = sv[i] * st[3 * (r0 + i) + 2];
          }
          for (int64_t c = 0; c < C; ++c) {
            T* gc = gi + base + c * inner;
            const T* xc = x + base + c * inner;
            for (int64_t i = 0; i < nb; ++i) gc[i] = xc[i] - mv[i];
            L.exp(gc, gc, nb);
          }
          if (prob) {
            for (int64_t c = 0; c < C; ++c) {
              T* gc = gi + base + c * inner;
              const T* tc = tp + base + c * inner;
              const T wc = static_cast<T>(W(c));
              for (int64_t i = 0; i < nb; ++i)
                gc[i] = gc[i] * kv[i] - sv[i] * (wc * ((T(1) - eps) * tc[i] + eps_c));
            }
            continue;
          }
          for (int64_t c = 0; c < C; ++c) {
            T* gc = gi + base + c * inner;
            const T wc = static_cast<T>(W(c));
            for (int64_t i = 0; i < nb; ++i) gc[i] *= kv[i];
            if (eps > 0)
              for (int64_t i = 0; i < nb; ++i) gc[i] -= sv[i] * eps_c * wc;
          }
          for (int64_t i = 0; i < nb; ++i) {
            const int64_t t = ti[r0 + i];
            if (t == opt.ignore_index) {
              for (int64_t c = 0; c < C; ++c) gi[base + c * inner + i] = T(0);
              continue;
            }
            gi[base + t * inner + i] -= sv[i] * (T(1) - eps) * static_cast<T>(W(t));
          }
        }
      });
      return;
    }
  }
  const int64_t grain = grain_for(C);
  if (rows <= grain) {
    for (int64_t r = 0; r < rows; ++r) row(r);
  } else {
    parallel_for(0, rows, grain, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) row(r);
    });
  }
}

void class_loss_backward_cpu(const Tensor& grad_input, const Tensor& grad_target, const Tensor& grad,
                             const Tensor& input, const Tensor& target, const Tensor& weight,
                             const Tensor& stats, const Tensor& total_weight, const ClassLossGeometry& g,
                             const ClassLossOptions& opt) {
  MT_DISPATCH_FLOATING_TYPES(
      input.dtype(), opt.kind == ClassLossKind::nll ? "nll_loss_backward" : "cross_entropy_backward", [&] {
        class_loss_backward_typed<scalar_t>(grad_input, grad_target, grad, input, target, weight, stats,
                                            total_weight, g, opt);
      });
}

// huber_loss / smooth_l1_loss in one pass (the composite took eight: sub, abs, two muls, sub, mul, lt, where,
// then the reduction). The elementwise loss is PyTorch's formula in T; a sum or mean adds the losses as sum()
// would (cpu_reduce's blocks and lanes from a buffer), each fixed chunk of kLossChunk values apart and the
// chunks in order, so the result does not depend on the thread count.
constexpr int64_t kLossChunk = 1 << 15;

template <typename T>
struct HuberMath {
  T param, half;
  bool smooth;
  T loss(T x, T y) const {
    const T z = std::abs(x - y);
    if (smooth) return z < param ? half * z * z / param : z - half * param;
    return z < param ? half * z * z : param * (z - half * param);
  }
  // d loss / d x over the incoming gradient g (already scaled by the mean's 1 / n)
  T grad(T x, T y, T g) const {
    const T d = x - y;
    if (smooth) return d < -param ? -g : (d > param ? g : d * g / param);
    return d < -param ? -g * param : (d > param ? g * param : d * g);
  }
};

// One loop over [0, n): the loss (g null, gs unused), or the gradient with g per element or gs for all.
// Written once, compiled for the baseline and, where the CPU has it, AVX2 (8 floats a vector against SSE's
// 4: float64 ran at 0.7-0.8 of PyTorch's speed on the baseline); no FMA, so the bits do not depend on the
// CPU.
template <typename T>
__attribute__((always_inline)) inline void huber_loop_impl(const HuberMath<T>& m, const T* x, const T* y,
                                                           const T* g, T gs, bool grad, T* o, int64_t n) {
  if (!grad)
    for (int64_t i = 0; i < n; ++i) o[i] = m.loss(x[i], y[i]);
  else if (g)
    for (int64_t i = 0; i < n; ++i) o[i] = m.grad(x[i], y[i], g[i]);
  else
    for (int64_t i = 0; i < n; ++i) o[i] = m.grad(x[i], y[i], gs);
}
#ifdef MT_LOOPS_AVX2
template <typename T>
__attribute__((target("avx2"))) void huber_loop_avx2(const HuberMath<T>& m, const T* x, const T* y,
                                                     const T* g, T gs, bool grad, T* o, int64_t n) {
  huber_loop_impl<T>(m, x, y, g, gs, grad, o, n);
}
#endif
template <typename T>
void huber_loop(const HuberMath<T>& m, const T* x, const T* y, const T* g, T gs, bool grad, T* o, int64_t n) {
#ifdef MT_LOOPS_AVX2
  if (loops_use_avx2()) return huber_loop_avx2<T>(m, x, y, g, gs, grad, o, n);
#endif
  huber_loop_impl<T>(m, x, y, g, gs, grad, o, n);
}

template <typename T>
void huber_typed(const Tensor& out, const Tensor& xt, const Tensor& yt, const Tensor& grad, HuberKind kind,
                 double param, Reduction reduction) {
  const T* x = xt.data<T>();
  const T* y = yt.data<T>();
  T* o = out.data<T>();
  const int64_t n = xt.numel();
  const HuberMath<T> m{static_cast<T>(param), T(0.5), kind == HuberKind::smooth_l1};
  if (grad.defined()) {
    const T* g = grad.data<T>();
    const bool each = reduction == Reduction::None;
    const T gs = each ? T(0) : reduction == Reduction::Mean ? static_cast<T>(g[0] / static_cast<T>(n)) : g[0];
    parallel_rows(n, 1, [&](int64_t b, int64_t e) {
      huber_loop<T>(m, x + b, y + b, each ? g + b : nullptr, gs, true, o + b, e - b);
    });
    return;
  }
  if (reduction == Reduction::None) {
    parallel_rows(n, 1, [&](int64_t b, int64_t e) {
      huber_loop<T>(m, x + b, y + b, nullptr, T(0), false, o + b, e - b);
    });
    return;
  }
  const int64_t nchunks = (n + kLossChunk - 1) / kLossChunk;
  std::vector<double> part(static_cast<size_t>(nchunks));
  auto run = [&](int64_t b, int64_t e) {
    T buf[2 * cpu_reduce::kBlock];
    for (int64_t k = b; k < e; ++k) {
      double total = 0;
      const int64_t c1 = std::min(n, (k + 1) * kLossChunk);
      for (int64_t b0 = k * kLossChunk; b0 < c1; b0 += 2 * cpu_reduce::kBlock) {
        const int64_t len = std::min<int64_t>(2 * cpu_reduce::kBlock, c1 - b0);
        huber_loop<T>(m, x + b0, y + b0, nullptr, T(0), false, buf, len);
        cpu_reduce::sum_blocks_into<T, T>(total, buf, len, cpu_reduce::Identity{});
      }
      part[k] = total;
    }
  };
  if (nchunks <= 1)
    run(0, nchunks);
  else
    parallel_for(0, nchunks, 1, run);
  double t = 0;
  for (double v : part) t += v;
  // the mean of no values is 0 / 0 = NaN, as PyTorch's
  *o = static_cast<T>(reduction == Reduction::Mean ? t / static_cast<double>(n) : t);
}

void huber_loss_cpu(const Tensor& out, const Tensor& x, const Tensor& y, const Tensor& grad, HuberKind kind,
                    double param, Reduction reduction) {
  MT_DISPATCH_FLOATING_TYPES(x.dtype(), kind == HuberKind::huber ? "huber" : "smooth_l1", [&] {
    if constexpr (std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>)
      huber_typed<scalar_t>(out, x, y, grad, kind, param, reduction);
    else
      MT_INTERNAL_ASSERT(false, "huber_loss_cpu takes float and double");
  });
}

// ---- CTC: the alpha and beta recursions of Graves et al. (2006) in log space, one sample per task, in
// log_probs' dtype as PyTorch's kernel. Each cell is PyTorch's log(exp(a1 - m) + exp(a2 - m) + exp(a3 - m)) +
// m + lp, a frame's cells at once through the vector exp and log rows of VecUnary.h where the CPU has them
// (else the scalar form, where exp(0) = 1 and exp(-inf) = 0 are written without calling exp: the same bits).
// Cells that no path reaches (above 2t + 1 in alpha, below what can still finish in beta) are -inf without
// computing them. The gradient sums each class's posterior occupancy exp(alpha + beta + nll - lp) directly
// instead of PyTorch's log-space accumulation (one exp per cell instead of an exp and a log), then writes
// (exp(lp) - occupancy) * grad.

// Sample b's extended target l' (blank, l1, blank, l2, ..., blank) and where l' may skip the blank before s.
struct CtcExtended {
  std::vector<int64_t> label;
  std::vector<char> skip;
  void build(const int64_t* tg, int64_t tl, int64_t blank) {
    const int64_t width = 2 * tl + 1;
    label.assign(static_cast<size_t>(width), blank);
    skip.assign(static_cast<size_t>(width), 0);
    for (int64_t j = 0; j < tl; ++j) {
      label[2 * j + 1] = tg[j];
      skip[2 * j + 1] = j > 0 && tg[j] != tg[j - 1];
    }
  }
};

// log(e^a1 + e^a2 + e^a3) + e as PyTorch computes it (m the largest of the three); a2, a3 may be -inf.
template <typename T>
inline T ctc_log_add3(T a1, T a2, T a3, T e) {
  constexpr T ninf = -std::numeric_limits<T>::infinity();
  T m = a1;
  if (a2 > m) m = a2;
  if (a3 > m) m = a3;
  if (m == ninf) return ninf + e;  // log(0) + 0 + e: NaN when e is
  if (!(m < std::numeric_limits<T>::infinity())) return std::numeric_limits<T>::quiet_NaN();  // inf - inf
  const T x1 = a1 == m ? T(1) : a1 == ninf ? T(0) : std::exp(a1 - m);
  const T x2 = a2 == m ? T(1) : a2 == ninf ? T(0) : std::exp(a2 - m);
  const T x3 = a3 == m ? T(1) : a3 == ninf ? T(0) : std::exp(a3 - m);
  return std::log(x1 + x2 + x3) + m + e;
}

// The vector exp and log rows for T, or nulls (an older CPU, a capped capability): the scalar loops then.
template <typename T>
struct CtcMath {
  using Loop = void (*)(T*, const T*, int64_t);
  Loop exp = nullptr, log = nullptr;
  CtcMath() {
    const vec::Table* t = vec::unary_table();
    if (!t) return;
    if constexpr (std::is_same_v<T, float>) {
      exp = t->f32[static_cast<int>(vec::Fn::exp)];
      log = t->f32[static_cast<int>(vec::Fn::log)];
    } else {
      exp = t->f64[static_cast<int>(vec::Fn::exp)];
      log = t->f64[static_cast<int>(vec::Fn::log)];
    }
    if (!exp || !log) exp = log = nullptr;
  }
  // y[i] = exp(x[i])
  void exps(T* y, const T* x, int64_t n) const {
    if (exp) return exp(y, x, n);
    for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i]);
  }
};

// A frame's cells: out[i] = ctc_log_add3(a1[i], a2[i], a3[i], e[i]) for i < n, PyTorch's formula row-wise
// (the three exps, exp(0) included, one log). w holds 8 n scratch values; a1, a2, a3, e live in it
// (caller-filled).
template <typename T>
struct CtcFrame {
  std::vector<T> w;
  T *a1, *a2, *a3, *e;
  void reserve(int64_t width) {
    w.resize(static_cast<size_t>(8 * width));
    a1 = w.data(), a2 = a1 + width, a3 = a2 + width, e = a3 + width;
  }
  void run(T* out, int64_t n, const CtcMath<T>& m) {
    constexpr T ninf = -std::numeric_limits<T>::infinity();
    if (!m.exp) {
      for (int64_t i = 0; i < n; ++i) out[i] = ctc_log_add3(a1[i], a2[i], a3[i], e[i]);
      return;
    }
    const int64_t width = static_cast<int64_t>(w.size()) / 8;
    T* mx = e + width;
    T* d = mx + width;  // 3 width: a - m for the three terms, then their exps
    for (int64_t i = 0; i < n; ++i) {
      T v = a1[i];
      if (a2[i] > v) v = a2[i];
      if (a3[i] > v) v = a3[i];
      v = v == ninf ? T(0) : v;
      mx[i] = v;
      d[i] = a1[i] - v;
      d[n + i] = a2[i] - v;
      d[2 * n + i] = a3[i] - v;
    }
    m.exp(d, d, 3 * n);
    for (int64_t i = 0; i < n; ++i) d[i] = d[i] + d[n + i] + d[2 * n + i];
    m.log(d, d, n);
    for (int64_t i = 0; i < n; ++i) out[i] = d[i] + mx[i] + e[i];
  }
};

template <typename T>
void ctc_forward_typed(const Tensor& nll_t, const Tensor& alpha_t, const Tensor& lp_t, const Tensor& tg_t,
                       const CtcArgs& a) {
  constexpr T ninf = -std::numeric_limits<T>::infinity();
  const int64_t t_max = lp_t.sizes()[0], batch = lp_t.sizes()[1], width = alpha_t.sizes()[2];
  const int64_t st = lp_t.strides()[0], sn = lp_t.strides()[1], sc = lp_t.strides()[2];
  const T* lp = lp_t.data<T>();
  const int64_t* tg = tg_t.data<int64_t>();
  T* nll = nll_t.data<T>();
  T* alpha = alpha_t.data<T>();
  const CtcMath<T> math;
  parallel_rows(batch, t_max * width, [&](int64_t b0, int64_t b1) {
    CtcExtended ext;
    CtcFrame<T> f;
    f.reserve(width);
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t il = a.input_lengths[b], tl = a.target_lengths[b], len = 2 * tl + 1;
      const T* x = lp + b * sn;
      T* la = alpha + b * t_max * width;
      std::fill(la, la + t_max * width, ninf);
      if (il == 0) {  // an empty input explains only an empty target
        nll[b] = -(tl == 0 ? T(0) : ninf);
        continue;
      }
      ext.build(tg + a.target_offsets[b], tl, a.blank);
      const int64_t* lab = ext.label.data();
      const char* skip = ext.skip.data();
      la[0] = x[a.blank * sc];
      if (tl > 0) la[1] = x[lab[1] * sc];
      for (int64_t t = 1; t < il; ++t) {
        const T* prev = la + (t - 1) * width;
        const T* xt = x + t * st;
        const int64_t n = std::min(len - 1, 2 * t + 1) + 1;
        for (int64_t s = 0; s < n; ++s) {
          f.a1[s] = prev[s];
          f.a2[s] = s > 0 ? prev[s - 1] : ninf;
          f.a3[s] = skip[s] ? prev[s - 2] : ninf;
          f.e[s] = xt[lab[s] * sc];
        }
        f.run(la + t * width, n, math);
      }
      const T* last = la + (il - 1) * width;
      if (tl == 0) {
        nll[b] = -last[0];
      } else {
        const T l1 = last[2 * tl], l2 = last[2 * tl - 1];
        T m = std::max(l1, l2);
        m = m == ninf ? T(0) : m;
        nll[b] = -(std::log(std::exp(l1 - m) + std::exp(l2 - m)) + m);
      }
    }
  });
}

template <typename T>
void ctc_backward_typed(const Tensor& gi_t, const Tensor& grad_t, const Tensor& lp_t, const Tensor& tg_t,
                        const Tensor& nll_t, const Tensor& alpha_t, const CtcArgs& a) {
  constexpr T ninf = -std::numeric_limits<T>::infinity();
  constexpr T nan = std::numeric_limits<T>::quiet_NaN();
  const int64_t t_max = lp_t.sizes()[0], batch = lp_t.sizes()[1], classes = lp_t.sizes()[2];
  const int64_t width = alpha_t.sizes()[2];
  const int64_t st = lp_t.strides()[0], sn = lp_t.strides()[1], sc = lp_t.strides()[2];
  const T* lp = lp_t.data<T>();
  const int64_t* tg = tg_t.data<int64_t>();
  const T* nlls = nll_t.data<T>();
  const T* alpha = alpha_t.data<T>();
  const T* grad = grad_t.data<T>();
  T* gi = gi_t.data<T>();
  const CtcMath<T> math;
  parallel_rows(batch, t_max * (width + classes), [&](int64_t b0, int64_t b1) {
    CtcExtended ext;
    CtcFrame<T> f;
    f.reserve(std::max(width, classes));
    std::vector<T> beta_a(static_cast<size_t>(width)), beta_b(static_cast<size_t>(width));
    std::vector<T> occ(static_cast<size_t>(std::max(width, classes)));
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t il = a.input_lengths[b], tl = a.target_lengths[b], len = 2 * tl + 1;
      const T nll = nlls[b], gr = grad[b];
      const T* x = lp + b * sn;
      auto row = [&](int64_t t) { return gi + (t * batch + b) * classes; };
      const bool zeroed = a.zero_infinity && nll == std::numeric_limits<T>::infinity();
      for (int64_t t = zeroed ? 0 : il; t < t_max; ++t) std::fill(row(t), row(t) + classes, T(0));
      if (zeroed || il == 0) continue;
      if (!(nll < std::numeric_limits<T>::infinity())) {
        // no alignment (or a NaN loss): PyTorch's exp(lp) - exp(-inf + inf - lp) is NaN for every class
        for (int64_t t = 0; t < il; ++t) std::fill(row(t), row(t) + classes, nan);
        continue;
      }
      ext.build(tg + a.target_offsets[b], tl, a.blank);
      const int64_t* lab = ext.label.data();
      const char* skip = ext.skip.data();
      std::fill(beta_a.begin(), beta_a.begin() + len, ninf);
      std::fill(beta_b.begin(), beta_b.begin() + len, ninf);
      T* cur = beta_a.data();
      T* next = beta_b.data();
      const T* la_b = alpha + b * t_max * width;
      for (int64_t t = il - 1; t >= 0; --t) {
        const T* xt = x + t * st;
        // positions that can still reach the end by the last frame, and that alpha reached from the first
        const int64_t lo = std::max<int64_t>(0, len - 2 - 2 * (il - 1 - t));
        const int64_t hi = std::min(len - 1, 2 * t + 1);
        if (t == il - 1) {
          cur[len - 1] = xt[a.blank * sc];
          if (tl > 0) cur[len - 2] = xt[lab[len - 2] * sc];
        } else {
          const int64_t n = len - lo;
          for (int64_t i = 0; i < n; ++i) {
            const int64_t s = lo + i;
            f.a1[i] = next[s];
            f.a2[i] = s + 1 < len ? next[s + 1] : ninf;
            f.a3[i] = s + 2 < len && skip[s + 2] ? next[s + 2] : ninf;
            f.e[i] = xt[lab[s] * sc];
          }
          f.run(cur + lo, n, math);
        }
        // each class's occupancy: exp(alpha + beta + nll - lp) summed over the positions labelled with it
        T* g = row(t);
        std::fill(g, g + classes, T(0));
        const T* la = la_b + t * width;
        const int64_t n = hi - lo + 1;
        if (n > 0) {
          for (int64_t s = lo; s <= hi; ++s) occ[s - lo] = la[s] + cur[s] + nll - xt[lab[s] * sc];
          math.exps(occ.data(), occ.data(), n);
          for (int64_t s = lo; s <= hi; ++s) g[lab[s]] += occ[s - lo];
        }
        for (int64_t c = 0; c < classes; ++c) occ[c] = xt[c * sc];
        math.exps(f.w.data(), occ.data(), classes);
        for (int64_t c = 0; c < classes; ++c)
          // PyTorch's log-space form gives NaN at a -inf log-probability (-inf - -inf)
          g[c] = occ[c] == ninf ? nan : (f.w[c] - g[c]) * gr;
        std::swap(cur, next);
        std::fill(cur, cur + len, ninf);
      }
    }
  });
}

void ctc_loss_cpu(const Tensor& nll, const Tensor& log_alpha, const Tensor& log_probs, const Tensor& targets,
                  const CtcArgs& a) {
  if (log_probs.dtype() == ScalarType::Float)
    ctc_forward_typed<float>(nll, log_alpha, log_probs, targets, a);
  else
    ctc_forward_typed<double>(nll, log_alpha, log_probs, targets, a);
}

void ctc_loss_backward_cpu(const Tensor& grad_input, const Tensor& grad, const Tensor& log_probs,
                           const Tensor& targets, const Tensor& nll, const Tensor& log_alpha,
                           const CtcArgs& a) {
  if (log_probs.dtype() == ScalarType::Float)
    ctc_backward_typed<float>(grad_input, grad, log_probs, targets, nll, log_alpha, a);
  else
    ctc_backward_typed<double>(grad_input, grad, log_probs, targets, nll, log_alpha, a);
}

}  // namespace

MT_REGISTER_KERNEL(class_loss_forward_stub, CPU, &class_loss_forward_cpu);
MT_REGISTER_KERNEL(huber_loss_stub, CPU, &huber_loss_cpu);
MT_REGISTER_KERNEL(class_loss_backward_stub, CPU, &class_loss_backward_cpu);
MT_REGISTER_KERNEL(ctc_loss_stub, CPU, &ctc_loss_cpu);
MT_REGISTER_KERNEL(ctc_loss_backward_stub, CPU, &ctc_loss_backward_cpu);

}  // namespace mt
