# SPDX-License-Identifier: MIT
# UPMEM's host module, for OpenPIM: installed as
# <prefix>/share/upmem/cmake/include/host/DpuHost.cmake, where UPMEM's SDK has
# it.  A host project include()s it and builds against libdpu with
#   target_include_directories(app PUBLIC ${DPU_HOST_INCLUDE_DIRECTORIES})
#   link_directories(${DPU_HOST_LINK_DIRECTORIES})        (optional here)
#   target_link_libraries(app ${DPU_HOST_LIBRARIES})
get_filename_component(_openpim_host_prefix "${CMAKE_CURRENT_LIST_DIR}/../../../../.." ABSOLUTE)
if(NOT DEFINED UPMEM_HOME)
  set(UPMEM_HOME ${_openpim_host_prefix})
endif()

set(DPU_HOST_INCLUDE_DIRECTORIES ${_openpim_host_prefix}/include/dpu)
set(DPU_HOST_LINK_DIRECTORIES ${_openpim_host_prefix}/lib)
# The full path: links with or without link_directories(), and CMake gives the
# program an RPATH to it.
set(DPU_HOST_LIBRARIES ${_openpim_host_prefix}/lib/libdpu.so)
if(NOT EXISTS ${DPU_HOST_LIBRARIES})
  message(FATAL_ERROR "DpuHost.cmake: ${DPU_HOST_LIBRARIES} not found (is ${_openpim_host_prefix} a built OpenPIM SDK?)")
endif()
