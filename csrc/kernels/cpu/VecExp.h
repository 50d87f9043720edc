// A float32 exp that vectorizes (no libm call per element), shared by the CPU kernels that need many exps.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace mt {

// float32 exp without a libm call per element: Cody-Waite range reduction and Cephes' degree-6 polynomial
// (within 2 ulp). Written without branches so the loop vectorizes (needs -fno-trapping-math); NaN flows
// through the arithmetic. Other dtypes, and the GPU, use fn::Exp.
struct VecExpF {
  float operator()(float x) const {
    float xc = std::min(std::max(x, -87.33654475f), 88.72283905f);
    float t = xc * 1.44269504088896341f + 0.5f;
    float fx = static_cast<float>(static_cast<int32_t>(t));  // floor by truncation: no libm call on SSE2
    fx -= static_cast<float>(fx > t);
    float r = xc - fx * 0.693359375f + fx * 2.12194440e-4f;
    float y =
        ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r +
         1.6666665459e-1f) *
            r +
        5.0000001201e-1f;
    y = y * (r * r) + r + 1.0f;
    uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(fx) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, 4);
    float v = y * scale;
    v = x > 88.72283905f ? std::numeric_limits<float>::infinity() : v;
    return x < -87.33654475f ? 0.0f : v;
  }
};

}  // namespace mt
