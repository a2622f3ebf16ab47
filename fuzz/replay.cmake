# Replay programs for the normal (gcc, sanitizers optional) build: each
# harness of fuzz/ with replay_main.c instead of libFuzzer, run by ctest
# over tests/fuzz-regress/<target>/ and the generated seeds.  Included from
# tests/CMakeLists.txt.  They link the tool's own libraries.
include(${PROJECT_SOURCE_DIR}/fuzz/sources.cmake)

add_library(e4replay_common STATIC ${PROJECT_SOURCE_DIR}/fuzz/fuzz_common.c)
target_include_directories(e4replay_common PUBLIC ${PROJECT_SOURCE_DIR}/fuzz)
target_link_libraries(e4replay_common PUBLIC e4tool)

foreach(t IN LISTS E4DUMP_FUZZ_TARGETS)
  add_executable(fuzz_replay_${t} ${PROJECT_SOURCE_DIR}/fuzz/fuzz_${t}.c
    ${PROJECT_SOURCE_DIR}/fuzz/replay_main.c)
  target_link_libraries(fuzz_replay_${t} PRIVATE e4replay_common)
endforeach()
