# SPDX-License-Identifier: MIT
# openpim_add_dpu_program(<name> SOURCES <files...> [TASKLETS n] [FLAGS <flags...>]
#                         [DEPENDS <files...>] [OUTPUT_DIRECTORY dir] [RACECHECK])
#
# Builds a DPU image <dir>/<name> (default: the current binary directory) with
# OpenPIM's DPU driver, exactly as a user's Makefile would, and a target
# dpu_<name> that builds it.  Relative sources are taken from the current
# source directory.  Libraries above the SDK (collectives, HE kernels) build
# their DPU kernels with it.  RACECHECK: an image for the race detector
# (OPENPIM_RACECHECK=1 for the driver; the others are built without it,
# whatever the environment says).
#
# Needs OPENPIM_DPU_DRIVER and OPENPIM_DPU_DRIVER_DEPS (top-level CMakeLists.txt).
function(openpim_add_dpu_program name)
  cmake_parse_arguments(A "RACECHECK" "TASKLETS;OUTPUT_DIRECTORY" "SOURCES;FLAGS;DEPENDS" ${ARGN})
  if(NOT A_SOURCES)
    message(FATAL_ERROR "openpim_add_dpu_program(${name}): no SOURCES")
  endif()
  if(NOT A_TASKLETS)
    set(A_TASKLETS 1)
  endif()
  if(NOT A_OUTPUT_DIRECTORY)
    set(A_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  set(srcs "")
  foreach(s ${A_SOURCES})
    get_filename_component(s ${s} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND srcs ${s})
  endforeach()
  file(GLOB_RECURSE dpu_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/dpu/*.h ${PROJECT_SOURCE_DIR}/abi/dpu_abi.h)
  set(out ${A_OUTPUT_DIRECTORY}/${name})
  set(racecheck 0)
  if(A_RACECHECK)
    set(racecheck 1)
  endif()
  add_custom_command(OUTPUT ${out}
    COMMAND env OPENPIM_QUIET=1 OPENPIM_RACECHECK=${racecheck} ${OPENPIM_DPU_DRIVER} -O2 -g -Wall -Wextra -Werror -DNR_TASKLETS=${A_TASKLETS}
            ${A_FLAGS} -o ${out} ${srcs}
    DEPENDS ${srcs} ${A_DEPENDS} ${dpu_headers} ${OPENPIM_DPU_DRIVER_DEPS} dpurt ${SDK_SHARE}/dpu.lds.in
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    COMMENT "DPU program ${name}" VERBATIM)
  add_custom_target(dpu_${name} ALL DEPENDS ${out})
endfunction()
