// The math of every multi-tensor op, written once for host and device: the CPU loop and the CUDA
// multi-tensor-apply kernel both instantiate these functors, so the CPU tests cover what the GPU computes.
// A functor sees one element of each of its kDepth lists as opmath values v[0..kDepth), updates them in
// place, and the caller stores back the lists named in the kOut bit mask. Constants that depend on a tensor's
// optimizer step are bound once per chunk by with_step().
#pragma once
#include <cmath>

#include "core/Macros.h"
#include "ops/foreach.h"

namespace mt {
namespace foreach_fn {

template <typename T>
MT_HD_INLINE T fsqrt(T x) {
  using std::sqrt;
  return sqrt(x);
}
template <typename T>
MT_HD_INLINE T fpow(T x, T y) {
  using std::pow;
  return pow(x, y);
}
template <typename T>
MT_HD_INLINE bool finite(T x) {
  // written out so that no fast-math flag may drop it: inf - inf and nan - nan are nan, nan != nan
  return (x - x) == (x - x);
}

template <typename T>
struct AddScalar {
  static constexpr int kDepth = 1;
  static constexpr unsigned kOut = 1;
  T s;
  MT_HD_INLINE void operator()(T* v) const { v[0] = v[0] + s; }
};
template <typename T>
struct AddList {
  static constexpr int kDepth = 2;
  static constexpr unsigned kOut = 1;
  T alpha;
  MT_HD_INLINE void operator()(T* v) const { v[0] = v[0] + alpha * v[1]; }
};
template <typename T>
struct MulScalar {
  static constexpr int kDepth = 1;
  static constexpr unsigned kOut = 1;
  T s;
  MT_HD_INLINE void operator()(T* v) const { v[0] = v[0] * s; }
};
template <typename T>
struct MulTensor {
  static constexpr int kDepth = 1;
  static constexpr unsigned kOut = 1;
  const T* s;
  MT_HD_INLINE void operator()(T* v) const { v[0] = v[0] * *s; }
};
template <typename T>
struct MulList {
  static constexpr int kDepth = 2;
  static constexpr unsigned kOut = 1;
  MT_HD_INLINE void operator()(T* v) const { v[0] = v[0] * v[1]; }
};
template <typename T>
struct Zero {
  static constexpr int kDepth = 1;
  static constexpr unsigned kOut = 1;
  MT_HD_INLINE void operator()(T* v) const { v[0] = T(0); }
};
template <typename T>
struct Addcmul {
  static constexpr int kDepth = 3;
  static constexpr unsigned kOut = 1;
  T value;
  MT_HD_INLINE void operator()(T* v) const { v[0] = v[0] + value * v[1] * v[2]; }
};
template <typename T>
struct Addcdiv {
  static constexpr int kDepth = 3;
  static constexpr unsigned kOut = 1;
  T value;
  MT_HD_INLINE void operator()(T* v) const { v[0] = v[0] + value * (v[1] / v[2]); }
};
// PyTorch's lerp: the form that is exact at both ends.
template <typename T>
struct Lerp {
  static constexpr int kDepth = 2;
  static constexpr unsigned kOut = 1;
  T w;
  MT_HD_INLINE void operator()(T* v) const {
    T d = v[1] - v[0];
    // |w| decides, as in fn::Lerp: w = -0.5 counted from self gave inf where PyTorch gives nan
    v[0] = ((w < T(0) ? -w : w) < T(0.5)) ? v[0] + w * d : v[1] - d * (T(1) - w);
  }
};
// out-of-place: v[0] is the output, v[1] the input
template <typename T>
struct Sqrt {
  static constexpr int kDepth = 2;
  static constexpr unsigned kOut = 1;
  MT_HD_INLINE void operator()(T* v) const { v[0] = fsqrt(v[1]); }
};

// PyTorch's SGD: lists param, grad[, momentum_buffer].
template <typename T, bool kMomentum>
struct Sgd {
  static constexpr int kDepth = kMomentum ? 3 : 2;
  static constexpr unsigned kOut = kMomentum ? 0b101u : 0b1u;
  T lr, momentum, dampening, weight_decay;
  bool nesterov, maximize, first_step;
  MT_HD_INLINE void operator()(T* v) const {
    T d = maximize ? -v[1] : v[1];
    if (weight_decay != T(0)) d = d + weight_decay * v[0];
    if constexpr (kMomentum) {
      T buf = first_step ? d : momentum * v[2] + (T(1) - dampening) * d;
      v[2] = buf;
      d = nesterov ? d + momentum * buf : buf;
    }
    v[0] = v[0] - lr * d;
  }
};

// PyTorch's Adam/AdamW: lists param, grad, exp_avg, exp_avg_sq[, max_exp_avg_sq]; step already incremented.
// The bias corrections depend on the tensor's step only: with_step() computes them once per chunk.
template <typename T, bool kAmsgrad>
struct Adam {
  static constexpr int kDepth = kAmsgrad ? 5 : 4;
  static constexpr unsigned kOut = kAmsgrad ? 0b11101u : 0b1101u;
  T lr, beta1, beta2, weight_decay, eps;
  bool maximize, decoupled;
  T step_size = T(0), bc2_sqrt = T(1);
  MT_HD_INLINE Adam with_step(float step) const {
    Adam r = *this;
    const T st = static_cast<T>(step);
    r.step_size = lr / (T(1) - fpow(beta1, st));
    r.bc2_sqrt = fsqrt(T(1) - fpow(beta2, st));
    return r;
  }
  MT_HD_INLINE void operator()(T* v) const {
    T p = v[0];
    T g = maximize ? -v[1] : v[1];
    if (weight_decay != T(0)) {
      if (decoupled)
        p = p * (T(1) - lr * weight_decay);
      else
        g = g + weight_decay * p;
    }
    T m = beta1 * v[2] + (T(1) - beta1) * g;
    T s = beta2 * v[3] + (T(1) - beta2) * g * g;
    T denom_src = s;
    if constexpr (kAmsgrad) {
      denom_src = v[4] > s ? v[4] : s;
      v[4] = denom_src;
    }
    const T denom = fsqrt(denom_src) / bc2_sqrt + eps;
    v[0] = p - step_size * m / denom;
    v[2] = m;
    v[3] = s;
  }
};

// PyTorch's RMSprop: lists param, grad, square_avg[, grad_avg if centered][, momentum_buffer].
template <typename T, bool kCentered, bool kMomentum>
struct Rmsprop {
  static constexpr int kDepth = 3 + kCentered + kMomentum;
  static constexpr unsigned kOut =
      0b101u | (kCentered ? 0b1000u : 0u) | (kMomentum ? (1u << (3 + kCentered)) : 0u);
  T lr, alpha, eps, weight_decay, momentum;
  bool maximize;
  MT_HD_INLINE void operator()(T* v) const {
    T g = maximize ? -v[1] : v[1];
    if (weight_decay != T(0)) g = g + weight_decay * v[0];
    T sq = alpha * v[2] + (T(1) - alpha) * g * g;
    v[2] = sq;
    T avg;
    if constexpr (kCentered) {
      T ga = v[3] + (T(1) - alpha) * (g - v[3]);
      v[3] = ga;
      avg = fsqrt(sq - ga * ga) + eps;
    } else {
      avg = fsqrt(sq) + eps;
    }
    if constexpr (kMomentum) {
      constexpr int b = 3 + kCentered;
      T buf = momentum * v[b] + g / avg;
      v[b] = buf;
      v[0] = v[0] - lr * buf;
    } else {
      v[0] = v[0] - lr * (g / avg);
    }
  }
};

// PyTorch's Adagrad: lists param, grad, state_sum; step already incremented (clr from it, once per chunk).
template <typename T>
struct Adagrad {
  static constexpr int kDepth = 3;
  static constexpr unsigned kOut = 0b101u;
  T lr, lr_decay, weight_decay, eps;
  bool maximize;
  T clr = T(0);
  MT_HD_INLINE Adagrad with_step(float step) const {
    Adagrad r = *this;
    r.clr = lr / (T(1) + (static_cast<T>(step) - T(1)) * lr_decay);
    return r;
  }
  MT_HD_INLINE void operator()(T* v) const {
    T g = maximize ? -v[1] : v[1];
    if (weight_decay != T(0)) g = g + weight_decay * v[0];
    T ss = v[2] + g * g;
    v[2] = ss;
    v[0] = v[0] - clr * (g / (fsqrt(ss) + eps));
  }
};

// GradScaler: grads times inv_scale; a non-finite input raises the flag (several writers store the same 1).
template <typename T>
struct Unscale {
  static constexpr int kDepth = 1;
  static constexpr unsigned kOut = 1;
  float* found_inf;
  const float* inv_scale;
  MT_HD_INLINE void operator()(T* v) const {
    if (!finite(v[0])) *found_inf = 1.0f;
    const float s = *inv_scale;
    v[0] = s == 1.0f ? v[0] : v[0] * static_cast<T>(s);
  }
};

// The functor for one tensor: optimizers fold the tensor's step into their constants; the rest ignore it.
template <typename F>
MT_HD_INLINE F with_step(const F& f, float) {
  return f;
}
template <typename T, bool A>
MT_HD_INLINE Adam<T, A> with_step(const Adam<T, A>& f, float step) {
  return f.with_step(step);
}
template <typename T>
MT_HD_INLINE Adagrad<T> with_step(const Adagrad<T>& f, float step) {
  return f.with_step(step);
}

// Calls f(functor) with the functor for args.kind, its arguments in opmath type T.
template <typename T, typename F>
void visit(const ForeachArgs& a, F&& f) {
  const T s = static_cast<T>(a.scalar);
  switch (a.kind) {
    case ForeachKind::add_scalar:
      return f(AddScalar<T>{s});
    case ForeachKind::add_list:
      return f(AddList<T>{static_cast<T>(a.alpha)});
    case ForeachKind::mul_scalar:
      return f(MulScalar<T>{s});
    case ForeachKind::mul_tensor:
      return f(MulTensor<T>{static_cast<const T*>(a.scalar_ptr)});
    case ForeachKind::mul_list:
      return f(MulList<T>{});
    case ForeachKind::zero:
      return f(Zero<T>{});
    case ForeachKind::addcmul:
      return f(Addcmul<T>{s});
    case ForeachKind::addcdiv:
      return f(Addcdiv<T>{s});
    case ForeachKind::lerp:
      return f(Lerp<T>{s});
    case ForeachKind::sqrt:
      return f(Sqrt<T>{});
    case ForeachKind::sgd: {
      const T lr = static_cast<T>(a.lr), mo = static_cast<T>(a.momentum), da = static_cast<T>(a.dampening),
              wd = static_cast<T>(a.weight_decay);
      if (a.momentum != 0) return f(Sgd<T, true>{lr, mo, da, wd, a.nesterov, a.maximize, a.first_step});
      return f(Sgd<T, false>{lr, mo, da, wd, a.nesterov, a.maximize, a.first_step});
    }
    case ForeachKind::adam: {
      const T lr = static_cast<T>(a.lr), b1 = static_cast<T>(a.beta1), b2 = static_cast<T>(a.beta2),
              wd = static_cast<T>(a.weight_decay), eps = static_cast<T>(a.eps);
      if (a.amsgrad) return f(Adam<T, true>{lr, b1, b2, wd, eps, a.maximize, a.decoupled});
      return f(Adam<T, false>{lr, b1, b2, wd, eps, a.maximize, a.decoupled});
    }
    case ForeachKind::rmsprop: {
      const T lr = static_cast<T>(a.lr), al = static_cast<T>(a.alpha), eps = static_cast<T>(a.eps),
              wd = static_cast<T>(a.weight_decay), mo = static_cast<T>(a.momentum);
      const bool m = a.momentum > 0;
      if (a.centered) {
        if (m) return f(Rmsprop<T, true, true>{lr, al, eps, wd, mo, a.maximize});
        return f(Rmsprop<T, true, false>{lr, al, eps, wd, mo, a.maximize});
      }
      if (m) return f(Rmsprop<T, false, true>{lr, al, eps, wd, mo, a.maximize});
      return f(Rmsprop<T, false, false>{lr, al, eps, wd, mo, a.maximize});
    }
    case ForeachKind::adagrad:
      return f(Adagrad<T>{static_cast<T>(a.lr), static_cast<T>(a.lr_decay), static_cast<T>(a.weight_decay),
                          static_cast<T>(a.eps), a.maximize});
    case ForeachKind::unscale:
      return f(Unscale<T>{a.found_inf, a.inv_scale});
  }
}

}  // namespace foreach_fn
}  // namespace mt
