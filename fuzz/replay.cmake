# Replay programs for the normal (gcc, sanitizers optional) build: each
# harness of fuzz/ with replay_main.c instead of libFuzzer, run by ctest
# over tests/fuzz-regress/<target>/ and the generated seeds.  Included from
# tests/CMakeLists.txt.
include(${PROJECT_SOURCE_DIR}/fuzz/sources.cmake)

add_library(e4replay_code STATIC
  ${E4DUMP_FUZZ_TOOL_SOURCES} ${PROJECT_SOURCE_DIR}/fuzz/fuzz_common.c)
target_compile_definitions(e4replay_code PRIVATE
  E4DUMP_VERSION="${PROJECT_VERSION}")
target_include_directories(e4replay_code PUBLIC
  ${PROJECT_SOURCE_DIR}/e4dump/src ${PROJECT_SOURCE_DIR}/fuzz)
target_link_libraries(e4replay_code PUBLIC
  e4core PkgConfig::EXT2FS PkgConfig::JSONC)

foreach(t IN LISTS E4DUMP_FUZZ_TARGETS)
  add_executable(fuzz_replay_${t} ${PROJECT_SOURCE_DIR}/fuzz/fuzz_${t}.c
    ${PROJECT_SOURCE_DIR}/fuzz/replay_main.c)
  target_link_libraries(fuzz_replay_${t} PRIVATE e4replay_code)
endforeach()
