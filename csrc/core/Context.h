// Process-wide backend settings (torch.backends.cudnn, matmul precision), PyTorch's at::Context: kept in
// core so the CUDA runtime and kernels read them without including op headers.
#pragma once
#include <cstdint>

namespace mt {

// cuDNN settings (torch.backends.cudnn): read by the CUDA conv kernels, set from Python. One process-wide
// value.
struct CudnnFlags {
  bool enabled = true, benchmark = false, deterministic = false, allow_tf32 = true;
};
CudnnFlags cudnn_flags();
void set_cudnn_flags(const CudnnFlags& f);
// cudnnGetVersion() (90100 for 9.1.0); 0 when built without cuDNN. Defined by the CUDA layer
// (cuda/CUDNNUtils.cpp), which is the only code that may call cuDNN.
int64_t cudnn_version();

// torch.set_float32_matmul_precision: "high" and "medium" let float32 GEMMs on CUDA use TF32 tensor cores
// (backends.cuda.matmul.allow_tf32 reads and writes the same setting, as in PyTorch). One process-wide value.
enum class Float32MatmulPrecision : int { highest, high, medium };
Float32MatmulPrecision float32_matmul_precision();
void set_float32_matmul_precision(Float32MatmulPrecision p);
inline bool matmul_allow_tf32() {
  return float32_matmul_precision() != Float32MatmulPrecision::highest;
}

}  // namespace mt
