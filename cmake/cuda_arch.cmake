# Chooses CMAKE_CUDA_ARCHITECTURES before enable_language(CUDA) and records the choice for the runtime check.
# Order: -DCMAKE_CUDA_ARCHITECTURES, MINITORCH_CUDA_ARCH_LIST (CMake's "75-real;90" or PyTorch's
# "7.5;9.0+PTX"), CUDAARCHS (read by CMake itself), the GPUs nvidia-smi reports, else a default.
# The default compiles SASS for sm_75 (T4) and sm_80 (A100; sm_86/sm_89 GPUs run sm_80 code, cubins are
# compatible within a major version) and SASS + PTX for sm_90 (H100; the PTX is JIT-compiled for newer GPUs):
# three targets, so nvcc time grows by half over the old "80-real;90", not by the six of a full list.
set(MINITORCH_CUDA_ARCH_SOURCE "")
if(DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(MINITORCH_CUDA_ARCH_SOURCE "CMAKE_CUDA_ARCHITECTURES")
elseif(NOT "$ENV{MINITORCH_CUDA_ARCH_LIST}" STREQUAL "")
  set(_archs "")
  string(REPLACE " " ";" _entries "$ENV{MINITORCH_CUDA_ARCH_LIST}")
  foreach(_e IN LISTS _entries)
    if(_e MATCHES "^([0-9]+)\\.([0-9]+)([af]?)(\\+PTX)?$")  # PyTorch's spelling: 8.6, 9.0a, 9.0+PTX
      if(CMAKE_MATCH_4)
        list(APPEND _archs "${CMAKE_MATCH_1}${CMAKE_MATCH_2}${CMAKE_MATCH_3}")
      else()
        list(APPEND _archs "${CMAKE_MATCH_1}${CMAKE_MATCH_2}${CMAKE_MATCH_3}-real")
      endif()
    elseif(NOT _e STREQUAL "")
      list(APPEND _archs "${_e}")
    endif()
  endforeach()
  set(CMAKE_CUDA_ARCHITECTURES "${_archs}")
  set(MINITORCH_CUDA_ARCH_SOURCE "MINITORCH_CUDA_ARCH_LIST")
elseif(NOT "$ENV{CUDAARCHS}" STREQUAL "")
  set(CMAKE_CUDA_ARCHITECTURES "$ENV{CUDAARCHS}")
  set(MINITORCH_CUDA_ARCH_SOURCE "CUDAARCHS")
else()
  # A GPU on the build machine (Colab, a workstation): build for exactly that one; plain "75" is SASS + PTX.
  find_program(MINITORCH_NVIDIA_SMI nvidia-smi)
  set(_detected "")
  if(MINITORCH_NVIDIA_SMI)
    execute_process(COMMAND ${MINITORCH_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE _caps RESULT_VARIABLE _rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE
                    TIMEOUT 20)
    if(_rc EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" _caps "${_caps}")
      foreach(_c IN LISTS _caps)
        string(REPLACE "." "" _c "${_c}")
        list(APPEND _detected "${_c}")
      endforeach()
      list(REMOVE_DUPLICATES _detected)
    endif()
  endif()
  if(_detected)
    set(CMAKE_CUDA_ARCHITECTURES "${_detected}")
    set(MINITORCH_CUDA_ARCH_SOURCE "nvidia-smi")
  else()
    set(CMAKE_CUDA_ARCHITECTURES 75-real 80-real 90)
    set(MINITORCH_CUDA_ARCH_SOURCE "default")
  endif()
endif()
message(STATUS "minitorch: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} (from ${MINITORCH_CUDA_ARCH_SOURCE})")

# The list goes to CUDAHooks.cpp alone (lazy init compares it with each GPU's compute capability), so changing
# it recompiles one .cpp file besides the kernels.
function(minitorch_record_cuda_archs)
  string(REPLACE ";" " " _list "${CMAKE_CUDA_ARCHITECTURES}")
  set_property(SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/csrc/cuda/CUDAHooks.cpp APPEND PROPERTY COMPILE_DEFINITIONS
               "MINITORCH_CUDA_ARCH_LIST=\"${_list}\"")
endfunction()
