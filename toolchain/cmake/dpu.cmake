# SPDX-License-Identifier: MIT
# UPMEM's DPU toolchain file, for OpenPIM: installed as
# <prefix>/share/upmem/cmake/dpu.cmake, where UPMEM's SDK has it, and used as
# UPMEM's projects use it: `-DCMAKE_TOOLCHAIN_FILE=<prefix>/share/upmem/cmake/dpu.cmake`
# (often from an ExternalProject of the host project), or include()d before
# project().  C (and assembly) sources of the project's targets are then
# compiled and linked by dpu-upmem-dpurte-clang into DPU images.  As with
# UPMEM's, NR_TASKLETS must reach the link too (target_link_options(... -DNR_TASKLETS=N)):
# the driver refuses objects compiled for another count.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR dpu)

# The SDK prefix is where this file lies; UPMEM_HOME names it for the project.
get_filename_component(_openpim_dpu_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT DEFINED UPMEM_HOME)
  set(UPMEM_HOME ${_openpim_dpu_prefix})
endif()

set(CMAKE_C_COMPILER ${_openpim_dpu_prefix}/bin/dpu-upmem-dpurte-clang)
set(CMAKE_ASM_COMPILER ${_openpim_dpu_prefix}/bin/dpu-upmem-dpurte-clang)
# The driver makes DPU images, not host programs: CMake must not try to run
# what it builds to identify it.
set(CMAKE_C_COMPILER_FORCED 1)
set(CMAKE_ASM_COMPILER_FORCED 1)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# Host programs (code generators) come from the host; libraries, headers and
# packages only from the SDK.
set(CMAKE_FIND_ROOT_PATH ${_openpim_dpu_prefix})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
