/* Shared by the libFuzzer harnesses (fuzz/fuzz_NAME.c) and the replay driver
 * (fuzz/replay_main.c, tests). */
#ifndef E4DUMP_FUZZ_COMMON_H
#define E4DUMP_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Send what the code under test prints to /dev/null, once: stdout at the
 * descriptor level, stderr by replacing the stdio stream only, so that
 * libFuzzer (which keeps the original FILE *) and the sanitizers (which
 * write to descriptor 2) still report.  E4DUMP_FUZZ_VERBOSE=1 keeps both. */
void fuzz_quiet(void);

/* Removes the tree at path (if any), whatever modes it has; never follows
 * a symlink. */
void fuzz_remove_tree(const char *path);

/* A new memfd (named name): its descriptor, and in path the name that
 * opens it as a file (/proc/self/fd/N).  Aborts when there is none. */
int fuzz_memfd(const char *name, char *path, size_t path_size);

/* fuzz_test_key in a memfd, whose name (as --key-file takes it) goes to
 * path.  Aborts when it cannot be written. */
void fuzz_key_file(char *path, size_t path_size);

/* A fixed 64-byte test key: the bundled sample's key
 * (testvectors/sample/sample.key, SHA-512("e4dump test key S")). */
extern const uint8_t fuzz_test_key[64];

#endif
