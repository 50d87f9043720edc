// Whether torch.autograd's anomaly mode is on: the engine's errors word their hints by it, as PyTorch's.
#pragma once
#include <atomic>

namespace mt::autograd {

// Process-wide, as PyTorch's AnomalyMode; python/minitorch/autograd/anomaly_mode.py sets it.
inline std::atomic<bool> g_anomaly_enabled{false};

}  // namespace mt::autograd
