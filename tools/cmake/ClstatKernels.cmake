# clstat_embed_kernels(<out-var> SOURCE_DIR <cl-dir> OUTPUT <generated.cpp>)
# Every entry kernel cl/<area>/*.cl becomes one embedded source: our own #include "..." lines are
# flattened once each with #line markers, and the text is stored with its SHA-256. Editing any .cl or
# .clh re-runs the generator, because every kernel file is a dependency of the custom command.
set(_CLSTAT_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/EmbedKernels.cmake)

function(clstat_embed_kernels out_var)
  cmake_parse_arguments(ARG "" "SOURCE_DIR;OUTPUT" "" ${ARGN})
  file(GLOB_RECURSE _all CONFIGURE_DEPENDS ${ARG_SOURCE_DIR}/*.cl ${ARG_SOURCE_DIR}/*.clh)
  add_custom_command(
    OUTPUT ${ARG_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -DCL_DIR=${ARG_SOURCE_DIR} -DOUTPUT=${ARG_OUTPUT} -P ${_CLSTAT_EMBED_SCRIPT}
    DEPENDS ${_all} ${_CLSTAT_EMBED_SCRIPT}
    COMMENT "Embedding OpenCL kernels"
    VERBATIM)
  set(${out_var} ${ARG_OUTPUT} PARENT_SCOPE)
endfunction()
