/* Command-line options, parsed per command: a command accepts only its
 * own options, and long options only by their full names. */
#ifndef E4DUMP_OPTIONS_H
#define E4DUMP_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "fname.h"
#include "report.h"

enum opt_id {
	OPT_KEY_FILE, OPT_PASSPHRASE_FILE, OPT_SALT, OPT_FORMAT, OPT_DUMMY_KEY,
	OPT_VERBOSE, OPT_HELP, OPT_LONG, OPT_RECURSIVE, OPT_OUT, OPT_FORCE,
	OPT_KEEP_SETID, OPT_XATTRS, OPT_JSON, OPT_SEED, OPT_CHECK, OPT_MAX_ENTRIES,
	OPT_MAX_DEPTH,
	OPT_THREADS, OPT_PARTITION, OPT_OFFSET, OPT_FULL_TIME, OPT_MANIFEST, OPT_QUIET,
	OPT_DFXML, OPT_KEEP_LOCKED, OPT_FOREGROUND, OPT_MOUNT_OPTIONS, OPT_MAX_OUTPUT,
	OPT_EVIDENCE,
	OPT_PREFIX, OPT_NANOSECONDS, OPT_NO_DELETED, OPT_JOURNAL_EVENTS,
	OPT_PROTECTOR_KEY_FILE, OPT_FSCRYPT_ROOT, OPT_ARGON2_MAX_MEMORY,
	OPT_ARGON2_MAX_TIME, OPT_WRITE_POLICY_KEYS, OPT_IMAGE, OPT_WRITE_KEYS,
	OPT_MEMORY,
	OPT_COUNT
};
_Static_assert(OPT_COUNT <= 64, "more options than bits in a command's mask");

/* A command's options: a bit per enum opt_id. */
typedef uint64_t opt_mask;
#define OPT_BIT(id) ((opt_mask)1 << (id))
/* What every command that opens an image takes. */
#define OPTS_IMAGE (OPT_BIT(OPT_KEY_FILE) | OPT_BIT(OPT_PASSPHRASE_FILE) |    \
		    OPT_BIT(OPT_SALT) | OPT_BIT(OPT_FORMAT) |                  \
		    OPT_BIT(OPT_DUMMY_KEY) | OPT_BIT(OPT_VERBOSE) |            \
		    OPT_BIT(OPT_HELP) | OPT_BIT(OPT_MAX_ENTRIES) |             \
		    OPT_BIT(OPT_MAX_DEPTH) | OPT_BIT(OPT_PARTITION) |         \
		    OPT_BIT(OPT_OFFSET) | OPT_BIT(OPT_MEMORY) |              \
		    OPTS_FSCRYPT_TOOL)
/* The fscrypt tool's protectors (tool/fsckeys.h). */
#define OPTS_FSCRYPT_TOOL (OPT_BIT(OPT_PROTECTOR_KEY_FILE) |                \
			   OPT_BIT(OPT_FSCRYPT_ROOT) |                       \
			   OPT_BIT(OPT_ARGON2_MAX_MEMORY) |                  \
			   OPT_BIT(OPT_ARGON2_MAX_TIME) |                    \
			   OPT_BIT(OPT_WRITE_POLICY_KEYS))

struct options {
	int long_format;          /* ls -l */
	int full_time;            /* ls --full-time */
	int recursive;            /* ls -R */
	const char *out_dir;      /* extract -o */
	const char *manifest;     /* extract --manifest */
	const char *dfxml;        /* extract, undelete --dfxml */
	int keep_locked;          /* extract --keep-locked */
	int force;                /* extract --force */
	int quiet;                /* extract, verify --quiet: no progress */
	int evidence;             /* verify --evidence: hash the media */
	int keep_setid;           /* extract --keep-setid */
	enum e4_name_format format;
	int dummy_key;
	int xattrs;               /* extract --xattrs: 0 no, 1 user.*, 2 also
				   * security.* and trusted.* */
	const char *seed;         /* vectors --seed */
	int check;                /* vectors --check */
	int json;                 /* --json */
	int help;
	unsigned long max_entries, max_depth; /* 0: the library's defaults */
	unsigned long threads;    /* cat, extract --threads: 0 = automatic */
	unsigned long partition;  /* --partition N (0: none) */
	int by_offset;            /* --offset given */
	unsigned long long offset; /* --offset, in bytes */
	int max_output_set;       /* extract --max-output given */
	unsigned long long max_output; /* its bytes (0: no limit) */
	int foreground;           /* mount -f */
	const char *prefix;       /* timeline -m: the mount point (fls -m) */
	int nanoseconds;          /* timeline --nanoseconds */
	int no_deleted;           /* timeline --no-deleted */
	int journal_events;       /* timeline --journal-events */
	const char **mount_options; /* mount -o OPTS (each as given) */
	size_t n_mount_options;
	const char **key_files;
	size_t n_key_files;
	const char **pass_files;
	size_t n_pass_files;
	const char *salt_hex;
	const char **protector_key_files; /* --protector-key-file */
	size_t n_protector_key_files;
	const char *fscrypt_root;  /* --fscrypt-root IMAGE */
	unsigned long long argon2_max_memory; /* KiB; 0: the default */
	unsigned long long argon2_max_time;   /* passes; 0: the default */
	const char *write_policy_keys; /* --write-policy-keys DIR */
	const char **images;      /* keyscan --image IMAGE */
	size_t n_images;
	const char *write_keys;   /* keyscan --write-keys DIR */
	const char **memory;      /* --memory CAPTURE: keys from RAM */
	size_t n_memory;
	int argc;                 /* the command line, as given */
	char **argv;
	const char **args;        /* positional: IMAGE [PATH] */
	size_t n_args;
};

/* Parse argv[first..argc-1] for a command accepting the options in mask.
 * 0, or -1 after printing an error (name: the command's name). */
int options_parse(struct options *o, const char *name, opt_mask mask,
		  int argc, char **argv, int first, struct report *r);
void options_free(struct options *o);

/* The help text of one option. */
void options_help(opt_mask mask, FILE *f);

#endif
