# Finds cuDNN 9 (no CMake config ships with it): headers and libcudnn, version from cudnn_version.h.
# Defines CUDNN_FOUND, CUDNN_VERSION and the imported target CUDNN::cudnn.
find_path(CUDNN_INCLUDE_DIR cudnn_version.h
  HINTS $ENV{CUDNN_ROOT} ${CUDNN_ROOT} ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
find_library(CUDNN_LIBRARY NAMES cudnn libcudnn.so.9 NAMES_PER_DIR  # wheels ship the soname only
  HINTS $ENV{CUDNN_ROOT} ${CUDNN_ROOT} ${CUDAToolkit_LIBRARY_DIR} PATH_SUFFIXES lib lib64)
if(CUDNN_INCLUDE_DIR AND EXISTS "${CUDNN_INCLUDE_DIR}/cudnn_version.h")
  file(READ "${CUDNN_INCLUDE_DIR}/cudnn_version.h" _cudnn_header)
  string(REGEX MATCH "define CUDNN_MAJOR ([0-9]+)" _m "${_cudnn_header}")
  set(CUDNN_VERSION_MAJOR ${CMAKE_MATCH_1})
  string(REGEX MATCH "define CUDNN_MINOR ([0-9]+)" _m "${_cudnn_header}")
  set(CUDNN_VERSION_MINOR ${CMAKE_MATCH_1})
  string(REGEX MATCH "define CUDNN_PATCHLEVEL ([0-9]+)" _m "${_cudnn_header}")
  set(CUDNN_VERSION "${CUDNN_VERSION_MAJOR}.${CUDNN_VERSION_MINOR}.${CMAKE_MATCH_1}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CUDNN REQUIRED_VARS CUDNN_LIBRARY CUDNN_INCLUDE_DIR VERSION_VAR CUDNN_VERSION)
if(CUDNN_FOUND AND NOT CUDNN_VERSION_MAJOR EQUAL 9)
  message(WARNING "cuDNN ${CUDNN_VERSION} found; minitorch needs cuDNN 9, building without it")
  set(CUDNN_FOUND FALSE)
endif()
if(CUDNN_FOUND AND NOT TARGET CUDNN::cudnn)
  add_library(CUDNN::cudnn SHARED IMPORTED)
  set_target_properties(CUDNN::cudnn PROPERTIES IMPORTED_LOCATION "${CUDNN_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${CUDNN_INCLUDE_DIR}")
endif()
