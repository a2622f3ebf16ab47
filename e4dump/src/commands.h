/* Subcommands and their shared options. */
#ifndef E4DUMP_COMMANDS_H
#define E4DUMP_COMMANDS_H

#include <stddef.h>

/* Exit codes. */
#define EXIT_DONE 0
#define EXIT_SKIPPED 1 /* something could not be decrypted or read */
#define EXIT_FATAL 2   /* bad usage, image cannot be opened */

struct options {
	int long_format;      /* -l */
	int recursive;        /* -R */
	const char *out_dir;  /* -o */
	int force;            /* extract --force: replace existing files */
	int format;           /* --format: enum name_format */
	int dummy_key;        /* --dummy-key */
	const char *seed;     /* vectors --seed */
	int check;            /* vectors --check */
	int json;             /* verify --json */
	const char **key_files;
	size_t n_key_files;
	const char **pass_files; /* --passphrase-file */
	size_t n_pass_files;
	const char *salt_hex;    /* --salt */
	const char **args;    /* positional: IMAGE [PATH] */
	size_t n_args;
};

int cmd_info(const struct options *o);
int cmd_ls(const struct options *o);
int cmd_cat(const struct options *o);
int cmd_extract(const struct options *o);
int cmd_vectors(const struct options *o);
int cmd_verify(const struct options *o);

/* Shared set-up: open the image and load the keys.  Returns 0 or
 * EXIT_FATAL after printing an error. */
struct img;
struct keyring;
int session_open(const struct options *o, struct img *im, struct keyring *kr);
void session_close(struct img *im, struct keyring *kr);

#endif
