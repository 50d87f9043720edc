# cuBLAS and cuDNN from NVIDIA's pip wheels (site-packages/nvidia/*), for machines whose CUDA libraries came
# from pip (Colab, a venv with nvidia-*-cu12/cu13) rather than from the toolkit. Wheels ship versioned sonames
# only (libcublas.so.12, libcudnn.so.9), so the names are listed; the installed _C finds them through the
# $ORIGIN-relative RPATH entries collected in MINITORCH_CUDA_WHEEL_RPATH.
# Included after find_package(CUDAToolkit); sets CUDNN_ROOT (read by FindCUDNN) when unset.
set(MINITORCH_CUDA_WHEEL_RPATH "")
if(Python_EXECUTABLE)
  set(_py "${Python_EXECUTABLE}")
else()
  find_program(MINITORCH_WHEELS_PYTHON NAMES python3 python)
  set(_py "${MINITORCH_WHEELS_PYTHON}")
endif()
set(_nvidia "")
if(_py)
  # purelib of the interpreter's prefix: under pip's build isolation that is still the target environment
  execute_process(COMMAND "${_py}" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])"
                  OUTPUT_VARIABLE _purelib OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_purelib AND IS_DIRECTORY "${_purelib}/nvidia")
    set(_nvidia "${_purelib}/nvidia")
  endif()
endif()
if(DEFINED ENV{MINITORCH_NVIDIA_WHEELS_DIR})  # explicit site-packages/nvidia (scripts/check_cuda12.sh)
  set(_nvidia "$ENV{MINITORCH_NVIDIA_WHEELS_DIR}")
endif()

set(_major ${CUDAToolkit_VERSION_MAJOR})
if(_nvidia)
  message(STATUS "minitorch: NVIDIA wheels in ${_nvidia}")
  # CUDA 13 wheels share one tree (nvidia/cu13), CUDA 12 wheels have one per library
  foreach(_sub cu${_major} cublas cuda_runtime cudnn)
    if(IS_DIRECTORY "${_nvidia}/${_sub}/lib")
      list(APPEND MINITORCH_CUDA_WHEEL_RPATH "$ORIGIN/../nvidia/${_sub}/lib")
    endif()
  endforeach()
  if(NOT CUDNN_ROOT AND NOT DEFINED ENV{CUDNN_ROOT} AND IS_DIRECTORY "${_nvidia}/cudnn")
    set(CUDNN_ROOT "${_nvidia}/cudnn")
  endif()
endif()

# cuBLAS: the toolkit's when it has one, else the wheel's (a toolkit installed as nvcc + cudart only).
if(NOT TARGET CUDA::cublas AND _nvidia)
  foreach(_lib cublas cublasLt)
    find_library(MINITORCH_WHEEL_${_lib} NAMES ${_lib} lib${_lib}.so.${_major}
                 HINTS "${_nvidia}/cu${_major}/lib" "${_nvidia}/cublas/lib" NO_DEFAULT_PATH)
    find_path(MINITORCH_WHEEL_${_lib}_INCLUDE cublas_v2.h
              HINTS "${_nvidia}/cu${_major}/include" "${_nvidia}/cublas/include" NO_DEFAULT_PATH)
    if(MINITORCH_WHEEL_${_lib} AND MINITORCH_WHEEL_${_lib}_INCLUDE)
      add_library(CUDA::${_lib} SHARED IMPORTED)
      set_target_properties(CUDA::${_lib} PROPERTIES IMPORTED_LOCATION "${MINITORCH_WHEEL_${_lib}}"
                            INTERFACE_INCLUDE_DIRECTORIES "${MINITORCH_WHEEL_${_lib}_INCLUDE}")
      message(STATUS "minitorch: ${_lib} from NVIDIA's wheel ${MINITORCH_WHEEL_${_lib}}")
    endif()
  endforeach()
endif()
