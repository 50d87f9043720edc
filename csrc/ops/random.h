// Front ends added beside ops/factory.h: torch.binomial's sampler and logspace's one-pass factory (declared
// here, not in factory.h, which ops/ops.h includes into nearly every translation unit).
#pragma once
#include <complex>

#include "core/Tensor.h"

namespace mt {

// base ** e for `steps` exponents e evenly spaced from start to end, one pass (torch.logspace's values); a
// real dtype reads the endpoints' real parts.
Tensor logspace(std::complex<double> start, std::complex<double> end, int64_t steps, double base,
                ScalarType dtype, Device device);

// Binomial(count, prob) draws (torch.binomial's kernel) for CPU count and prob of one shape and float dtype;
// the Python wrapper checks the arguments and broadcasts.
Tensor binomial(const Tensor& count, const Tensor& prob);

}  // namespace mt
