# The sources the harnesses link: the library (e4core's own list) and every
# tool source but main.c (globbed, so new command files are picked up).
# Sets E4DUMP_FUZZ_LIB_SOURCES and E4DUMP_FUZZ_TOOL_SOURCES.
get_target_property(_e4core_srcs e4core SOURCES)
set(E4DUMP_FUZZ_LIB_SOURCES "")
foreach(_s IN LISTS _e4core_srcs)
  if(IS_ABSOLUTE "${_s}")
    list(APPEND E4DUMP_FUZZ_LIB_SOURCES "${_s}")
  else()
    list(APPEND E4DUMP_FUZZ_LIB_SOURCES "${PROJECT_SOURCE_DIR}/e4dump/${_s}")
  endif()
endforeach()
file(GLOB E4DUMP_FUZZ_TOOL_SOURCES CONFIGURE_DEPENDS
     "${PROJECT_SOURCE_DIR}/e4dump/src/*.c")
list(FILTER E4DUMP_FUZZ_TOOL_SOURCES EXCLUDE REGEX "/main\\.c$")
set(E4DUMP_FUZZ_TARGETS context keyfile nokey symlink names image)
