/* e4dump: offline reader of encrypted ext4 images.  A small command
 * table; each command parses its own options. */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include "commands.h"
#include "kdf.h"
#include "session.h"

#ifndef E4DUMP_VERSION
#define E4DUMP_VERSION "0"
#endif

struct command {
	const char *name;
	int (*run)(const struct options *o, struct report *r);
	opt_mask opts;
	size_t min_args, max_args;
	const char *usage;
	const char *help;
};

static const struct command commands[] = {
	{ "info", cmd_info, OPTS_IMAGE | OPT_BIT(OPT_JSON), 1, 1, "info [--json] [OPTIONS] IMAGE",
	  "encryption facts of the filesystem and each policy in it" },
	{ "ls", cmd_ls, OPTS_IMAGE | OPT_BIT(OPT_LONG) | OPT_BIT(OPT_RECURSIVE) |
	  OPT_BIT(OPT_FULL_TIME) | OPT_BIT(OPT_JSON),
	  1, 2, "ls [-l] [--full-time] [-R] [--json] [OPTIONS] IMAGE [PATH]",
	  "list a directory, with decrypted names where a key opens it and\n"
	  "      the names Linux shows without the key elsewhere" },
	{ "cat", cmd_cat, OPTS_IMAGE | OPT_BIT(OPT_THREADS) | OPT_BIT(OPT_OUT) | OPT_BIT(OPT_JSON),
	  2, 2, "cat [--threads N] [-o FILE [--json]] [OPTIONS] IMAGE PATH",
	  "write a file's decrypted contents (or a symlink's target) to stdout,\n"
	  "      or to a new FILE (with --json: a record of it, with its hashes)" },
	{ "stat", cmd_stat, OPTS_IMAGE | OPT_BIT(OPT_JSON), 2, 2,
	  "stat [--json] [OPTIONS] IMAGE PATH",
	  "one inode: type, mode, owner, size, links, flags, the four times\n"
	  "      (UTC, nanoseconds), its blocks, its encryption context and key" },
	{ "timeline", cmd_timeline, OPTS_IMAGE | OPT_BIT(OPT_PREFIX) | OPT_BIT(OPT_NANOSECONDS) |
	  OPT_BIT(OPT_NO_DELETED) | OPT_BIT(OPT_JOURNAL_EVENTS) | OPT_BIT(OPT_JSON), 1, 2,
	  "timeline [-m PREFIX] [--nanoseconds] [--no-deleted] [--journal-events]\n"
	  "             [--json] [OPTIONS] IMAGE [PATH]",
	  "a body file (The Sleuth Kit 3.x) of the tree, decrypted names, and\n"
	  "      of the entries deleted that the journal still names, for mactime" },
	{ "extract", cmd_extract,
	  OPTS_IMAGE | OPT_BIT(OPT_OUT) | OPT_BIT(OPT_FORCE) | OPT_BIT(OPT_KEEP_SETID) |
	  OPT_BIT(OPT_THREADS) | OPT_BIT(OPT_MANIFEST) | OPT_BIT(OPT_QUIET) |
	  OPT_BIT(OPT_DFXML) | OPT_BIT(OPT_KEEP_LOCKED) | OPT_BIT(OPT_JSON) |
	  OPT_BIT(OPT_MAX_OUTPUT) | OPT_BIT(OPT_XATTRS),
	  1, 2, "extract [--force] [--keep-setid] [--keep-locked] [--xattrs[=all]] [--threads N]\n"
	  "             [--manifest FILE] [--dfxml FILE] [--json] [--max-output BYTES]\n"
	  "             [OPTIONS] IMAGE [PATH] -o DIR",
	  "extract a tree, decrypted, into DIR" },
	{ "verify", cmd_verify, OPTS_IMAGE | OPT_BIT(OPT_JSON) | OPT_BIT(OPT_QUIET) |
	  OPT_BIT(OPT_EVIDENCE), 1, 1,
	  "verify [--json] [-q] [--evidence] [OPTIONS] IMAGE",
	  "check the encryption format: every inode and entry (exit 1 on findings);\n"
	  "      --evidence: also the media against its container's stored hashes" },
	{ "journal", cmd_journal, OPTS_IMAGE | OPT_BIT(OPT_JSON), 1, 1,
	  "journal [--json] [OPTIONS] IMAGE",
	  "the jbd2 journal: its superblock and every transaction still in it,\n"
	  "      with the blocks each holds copies of and what they are" },
	{ "mount", cmd_mount,
	  OPTS_IMAGE | OPT_BIT(OPT_MOUNT_OPTIONS) | OPT_BIT(OPT_FOREGROUND) |
	  OPT_BIT(OPT_KEEP_LOCKED) | OPT_BIT(OPT_JSON),
	  2, 2, "mount [-f] [-o allow_other] [--keep-locked] [--json] [OPTIONS] IMAGE MOUNTPOINT",
	  "a read-only FUSE view of the decrypted tree (unmount: fusermount3 -u)" },
	{ "undelete", cmd_undelete,
	  OPTS_IMAGE | OPT_BIT(OPT_OUT) | OPT_BIT(OPT_KEEP_LOCKED) | OPT_BIT(OPT_JSON) |
	  OPT_BIT(OPT_MANIFEST) | OPT_BIT(OPT_DFXML) | OPT_BIT(OPT_MAX_OUTPUT),
	  1, 2, "undelete [--keep-locked] [--json] [--manifest FILE] [--dfxml FILE]\n"
	  "             [--max-output BYTES]\n"
	  "             [OPTIONS] IMAGE [PATH] -o DIR",
	  "recover deleted entries (names and contents) from the journal's\n"
	  "      copies, decrypted, into DIR, each with a verdict" },
	{ "unlock-kept", cmd_unlock_kept,
	  OPT_BIT(OPT_KEY_FILE) | OPT_BIT(OPT_PASSPHRASE_FILE) | OPT_BIT(OPT_SALT) |
	  OPT_BIT(OPT_VERBOSE) | OPT_BIT(OPT_HELP) | OPT_BIT(OPT_OUT) | OPT_BIT(OPT_FORCE) |
	  OPT_BIT(OPT_MANIFEST) | OPT_BIT(OPT_JSON) | OPT_BIT(OPT_KEEP_SETID),
	  1, 1, "unlock-kept (--key-file F | --passphrase-file F [--salt SALT])...\n"
	  "             [--manifest FILE] [--json] [--force] [--keep-setid] EXPORT -o OUT",
	  "finish an extract --keep-locked from its output EXPORT alone (no image):\n"
	  "      decrypt the names, files and symlinks kept locked into OUT" },
	{ "volumes", cmd_volumes, OPT_BIT(OPT_HELP) | OPT_BIT(OPT_VERBOSE) | OPT_BIT(OPT_JSON),
	  1, 1, "volumes [--json] IMAGE",
	  "what a disk image holds: container, partitions (start, length,\n"
	  "      type), the filesystem in each and whether it has encrypted inodes" },
	{ "keyid", cmd_keyid, OPTS_IMAGE | OPT_BIT(OPT_JSON), 0, 1,
	  "keyid [--json] (--key-file F | --passphrase-file F [--salt SALT])... [IMAGE]",
	  "each key's v1 descriptor (e4crypt's convention) and v2 identifier;\n"
	  "      with IMAGE, the policies each opens" },
	{ "keyscan", cmd_keyscan,
	  OPT_BIT(OPT_IMAGE) | OPT_BIT(OPT_WRITE_KEYS) | OPT_BIT(OPT_JSON) |
	  OPT_BIT(OPT_THREADS) | OPT_BIT(OPT_PARTITION) | OPT_BIT(OPT_OFFSET) |
	  OPT_BIT(OPT_HELP) | OPT_BIT(OPT_VERBOSE), 1, (size_t)-1,
	  "keyscan [--image IMAGE]... [--write-keys DIR] [--threads N] [--json] CAPTURE...",
	  "the fscrypt keys in RAM captures (raw, LiME, ELF core) of the\n"
	  "      running system, each confirmed by IMAGE's policies" },
	{ "vectors", cmd_vectors,
	  OPT_BIT(OPT_SEED) | OPT_BIT(OPT_CHECK) | OPT_BIT(OPT_HELP) | OPT_BIT(OPT_VERBOSE),
	  0, 1, "vectors [--seed TEXT] | vectors --check FILE",
	  "write deterministic test vectors (JSON Lines), or recompute a file of them" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: e4dump [-v] COMMAND [OPTIONS] IMAGE [PATH]\n\n"
		   "Reads an ext4 image (never modifies it) and decrypts what fscrypt\n"
		   "encrypted, given the master keys: v1 and v2 policies; contents in\n"
		   "AES-256-XTS, AES-128-CBC-ESSIV or Adiantum, names in AES-256-CTS,\n"
		   "AES-128-CTS, Adiantum or AES-256-HCTR2; policy flags PAD_4 to PAD_32,\n"
		   "DIRECT_KEY, IV_INO_LBLK_64 and IV_INO_LBLK_32; and the 2015 format.\n"
		   "IMAGE may be a raw image, a split raw set, an E01, qcow2, VMDK, VHD,\n"
		   "VHDX or Android sparse image, and may hold a partitioned disk.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  e4dump %s\n      %s\n", commands[i].usage,
			commands[i].help);
	fprintf(f, "\noptions (each command takes those its help lists):\n");
	options_help(~(opt_mask)0, f);
	fprintf(f, "\nPATH is '/'-separated from the image root, with decrypted names\n"
		   "(or, without a key, the names ls shows); <N> is inode N, as in\n"
		   "debugfs (<12>, <12>/sub/name).\n\n"
		   "exit status: 0 all done, 1 something skipped, partial, kept locked\n"
		   "or not recovered (verify: findings), 2 fatal (bad usage, keys or\n"
		   "image unusable).  --json: JSON Lines, see man e4dump, JSON RECORDS.\n"
		   "See man e4dump.\n");
}

static void command_usage(const struct command *c, FILE *f)
{
	fprintf(f, "usage: e4dump %s\n    %s\n\noptions:\n", c->usage, c->help);
	options_help(c->opts, f);
}

/* Advise the first HEAP_HUGE bytes of the heap for transparent huge
 * pages (as glibc's tunable glibc.malloc.hugetlb=1 would, which can only
 * be set from the environment): on a virtual machine every 4 KiB fault
 * and every TLB miss costs a trip through two page tables, and verify
 * runs a third faster on 2 MiB pages.  The block is reserved, advised
 * and freed at once: untouched, it adds nothing to the resident set, and
 * since freed memory is kept (M_TRIM_THRESHOLD), later allocations are
 * carved from it. */
#define HEAP_HUGE ((size_t)30 << 20)
static void heap_on_huge_pages(void)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t)2 << 20;
	uint8_t *p = malloc(HEAP_HUGE);
	uintptr_t start, end;

	if (!p)
		return;
	start = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	end = ((uintptr_t)p + HEAP_HUGE) & ~(huge - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
	free(p);
#endif
}

/* Raise the soft limit on open files to the hard one: the container
 * libraries keep each segment file open, per reading thread, and an E01
 * of a large disk has hundreds of segments (container.h). */
static void more_open_files(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Key material passes through registers that a callee may spill below
 * main's frame and leave there (glibc's lazy binder saves the vector
 * registers on the stack when it resolves a symbol, OpenSSL's assembly
 * keeps round keys in them): the stack the command used is cleared
 * before the process ends. */
#define STACK_WIPE (512u << 10)

static __attribute__((noinline)) void wipe_stack(void)
{
	uint8_t below[STACK_WIPE];

	e4_wipe(below, sizeof(below));
}

int main(int argc, char **argv)
{
	struct report r = { 0 };
	struct options o;
	const struct command *cmd = NULL;
	int first = 1, rc;

	/* Keep freed memory for the next listing instead of handing it back
	 * to the kernel: each fresh page costs a fault, and on a virtual
	 * machine a fault costs more than the work done on the page (verify
	 * took 10,000 faults, e2fsck 500).  Peak memory is unchanged. */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	heap_on_huge_pages();
	more_open_files();

	/* global options before the command */
	while (first < argc && (!strcmp(argv[first], "-v") ||
				!strcmp(argv[first], "--verbose"))) {
		r.verbose = 1;
		first++;
	}
	if (first >= argc) {
		usage(stderr);
		return EXIT_FATAL;
	}
	if (!strcmp(argv[first], "-h") || !strcmp(argv[first], "--help") ||
	    !strcmp(argv[first], "help")) {
		usage(stdout);
		return finish_stdout(EXIT_DONE, &r);
	}
	if (!strcmp(argv[first], "--version")) {
		printf("e4dump %s\n", E4DUMP_VERSION);
		return finish_stdout(EXIT_DONE, &r);
	}
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(argv[first], commands[i].name))
			cmd = &commands[i];
	if (!cmd) {
		report_error(&r, "unknown command \"%s\" (see e4dump --help)", argv[first]);
		return EXIT_FATAL;
	}
	memset(&o, 0, sizeof(o));
	if (options_parse(&o, cmd->name, cmd->opts, argc, argv, first + 1, &r)) {
		options_free(&o);
		return EXIT_FATAL;
	}
	r.json = o.json;
	o.argc = argc;
	o.argv = argv;
	if (o.help) {
		command_usage(cmd, stdout);
		options_free(&o);
		return finish_stdout(EXIT_DONE, &r);
	}
	if (o.n_args < cmd->min_args || o.n_args > cmd->max_args) {
		report_error(&r, "%s: wrong number of arguments (usage: e4dump %s)",
			     cmd->name, cmd->usage);
		options_free(&o);
		return EXIT_FATAL;
	}
	rc = cmd->run(&o, &r);
	options_free(&o);
	wipe_stack();
	return rc;
}
