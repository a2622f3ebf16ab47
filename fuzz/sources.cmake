# The sources the libFuzzer harnesses compile, instrumented: the two
# libraries' objects and the tool's commands (every target's own source
# list, so nothing is listed twice).  Sets E4DUMP_FUZZ_SOURCES.
set(E4DUMP_FUZZ_SOURCES "")
foreach(_t e4core_obj e4image_obj e4tool)
  get_target_property(_srcs ${_t} SOURCES)
  foreach(_s IN LISTS _srcs)
    if(IS_ABSOLUTE "${_s}")
      list(APPEND E4DUMP_FUZZ_SOURCES "${_s}")
    else()
      list(APPEND E4DUMP_FUZZ_SOURCES "${PROJECT_SOURCE_DIR}/e4dump/${_s}")
    endif()
  endforeach()
endforeach()
set(E4DUMP_FUZZ_TARGETS context keyfile nokey symlink names image dirblock extent xattr jbd2 volume undelete container export fscrypt_meta capture memkeys)
