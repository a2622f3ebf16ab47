/* e4dump: offline reader for encrypted ext4 images. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ext2fs/ext2_err.h>
#include "commands.h"
#include "image.h"
#include "report.h"

#ifndef E4DUMP_VERSION
#define E4DUMP_VERSION "0"
#endif

struct command {
	const char *name;
	int (*run)(const struct options *o);
	size_t min_args, max_args;
	const char *usage;
	const char *help;
};

static const struct command commands[] = {
	{ "info", cmd_info, 1, 1, "info [--key-file F]... IMAGE",
	  "encryption facts of the filesystem and each policy in it" },
	{ "ls", cmd_ls, 1, 2, "ls [-l] [-R] [--key-file F]... IMAGE [PATH]",
	  "list a directory, with decrypted names where a key is known" },
	{ "cat", cmd_cat, 2, 2, "cat --key-file F IMAGE PATH",
	  "write a file's decrypted contents (or a symlink's target) to stdout" },
	{ "extract", cmd_extract, 1, 2,
	  "extract [--key-file F]... [--force] IMAGE [PATH] -o DIR",
	  "extract a tree, decrypted, into DIR" },
	{ "verify", cmd_verify, 1, 1, "verify [--key-file F]... [--json] IMAGE",
	  "check the encryption format: every inode and entry (exit 1 on findings)" },
	{ "vectors", cmd_vectors, 0, 1, "vectors [--seed TEXT] | vectors --check FILE",
	  "write deterministic test vectors (JSON Lines), or recompute a file of them" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: e4dump COMMAND [OPTIONS] IMAGE [PATH]\n\n"
		   "Reads an ext4 image (never modifies it) and decrypts what\n"
		   "fscrypt v1 policies encrypted, given the master keys.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  e4dump %s\n      %s\n", commands[i].usage,
			commands[i].help);
	fprintf(f, "\noptions:\n"
		   "  -k, --key-file F  master key: raw bytes (16..64) or hex text;\n"
		   "                    '-' reads standard input; repeatable\n"
		   "  --passphrase-file F  key from a passphrase, derived as e4crypt does\n"
		   "                    (salt: s_encrypt_pw_salt or --salt HEX)\n"
		   "  -l                long listing: inode, type, mode, size, mtime\n"
		   "  -R                recursive listing\n"
		   "  -o DIR            output directory for extract\n"
		   "  --force           extract: replace existing files and symlinks in DIR\n"
		   "                    (the entries themselves, never through a symlink)\n"
		   "  --format F        generation of encrypted names: auto (default),\n"
		   "                    2015 (the seed: no-key names a-zA-Z0-9_+) or\n"
		   "                    6.1 (base64url no-key names)\n"
		   "  --dummy-key       policies with descriptor 4242424242424242 use the\n"
		   "                    2015 test_dummy_encryption key (0x42 repeated,\n"
		   "                    no derivation)\n"
		   "  --json            verify: one JSON object per finding, then a summary\n"
		   "  -v, --verbose     say which key opened which descriptor\n"
		   "  -h, --help        this help\n"
		   "  --version         version\n\n"
		   "PATH is '/'-separated from the image root, with decrypted names\n"
		   "(or, without a key, the names ls shows).\n\n"
		   "exit status: 0 done, 1 something was skipped or unreadable,\n"
		   "2 fatal (bad usage, image cannot be opened).\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "key-file", required_argument, NULL, 'k' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "format", required_argument, NULL, 'F' },
		{ "dummy-key", no_argument, NULL, 'D' },
		{ "seed", required_argument, NULL, 'S' },
		{ "passphrase-file", required_argument, NULL, 'P' },
		{ "salt", required_argument, NULL, 'T' },
		{ "check", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' },
		{ "force", no_argument, NULL, 'O' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o;
	const struct command *cmd = NULL;
	int c, rc;

	memset(&o, 0, sizeof(o));
	initialize_ext2_error_table();
	/* Global options may come before the command. */
	while (argc > 2 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--verbose"))) {
		report_verbose = 1;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_FATAL;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_DONE;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("e4dump %s\n", E4DUMP_VERSION);
		return EXIT_DONE;
	}
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			cmd = &commands[i];
	if (!cmd) {
		report_error("unknown command \"%s\" (see e4dump --help)", argv[1]);
		return EXIT_FATAL;
	}
	o.key_files = calloc((size_t)argc, sizeof(*o.key_files));
	o.args = calloc((size_t)argc, sizeof(*o.args));
	o.pass_files = calloc((size_t)argc, sizeof(*o.pass_files));
	if (!o.key_files || !o.args || !o.pass_files) {
		report_error("out of memory");
		return EXIT_FATAL;
	}
	optind = 2;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "k:lRo:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': o.key_files[o.n_key_files++] = optarg; break;
		case 'l': o.long_format = 1; break;
		case 'R': o.recursive = 1; break;
		case 'o': o.out_dir = optarg; break;
		case 'v': report_verbose = 1; break;
		case 'D': o.dummy_key = 1; break;
		case 'S': o.seed = optarg; break;
		case 'P': o.pass_files[o.n_pass_files++] = optarg; break;
		case 'T': o.salt_hex = optarg; break;
		case 'C': o.check = 1; break;
		case 'J': o.json = 1; break;
		case 'O': o.force = 1; break;
		case 'F':
			if (!strcmp(optarg, "auto")) {
				o.format = FORMAT_AUTO;
			} else if (!strcmp(optarg, "2015")) {
				o.format = FORMAT_2015;
			} else if (!strcmp(optarg, "6.1")) {
				o.format = FORMAT_61;
			} else {
				report_error("--format: \"%s\" is not auto, 2015 or 6.1", optarg);
				rc = EXIT_FATAL;
				goto out;
			}
			break;
		case 'h': usage(stdout); rc = EXIT_DONE; goto out;
		case 'V': printf("e4dump %s\n", E4DUMP_VERSION); rc = EXIT_DONE; goto out;
		default:
			report_error("%s: bad option \"%s\" (usage: e4dump %s)",
				     cmd->name, argv[optind - 1], cmd->usage);
			rc = EXIT_FATAL;
			goto out;
		}
	}
	for (int i = optind; i < argc; i++)
		o.args[o.n_args++] = argv[i];
	if (o.n_args < cmd->min_args || o.n_args > cmd->max_args) {
		report_error("%s: wrong number of arguments (usage: e4dump %s)",
			     cmd->name, cmd->usage);
		rc = EXIT_FATAL;
		goto out;
	}
	if ((o.long_format || o.recursive) && cmd->run != cmd_ls) {
		report_error("%s: -l and -R are for ls", cmd->name);
		rc = EXIT_FATAL;
		goto out;
	}
	if (o.json && cmd->run != cmd_verify) {
		report_error("%s: --json is for verify", cmd->name);
		rc = EXIT_FATAL;
		goto out;
	}
	if (o.force && cmd->run != cmd_extract) {
		report_error("%s: --force is for extract", cmd->name);
		rc = EXIT_FATAL;
		goto out;
	}
	if (o.out_dir && cmd->run != cmd_extract) {
		report_error("%s: -o is for extract", cmd->name);
		rc = EXIT_FATAL;
		goto out;
	}
	rc = cmd->run(&o);
out:
	free(o.key_files);
	free(o.pass_files);
	free(o.args);
	return rc;
}
