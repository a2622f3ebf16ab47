#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"

struct opt_def {
	enum opt_id id;
	char short_name;        /* 0: none */
	const char *long_name;
	const char *arg;        /* the argument's name, or NULL */
	const char *help;
};

static const struct opt_def defs[] = {
	{ OPT_KEY_FILE, 'k', "key-file", "F",
	  "master key: raw bytes (16..64) or hex text; '-' reads\n"
	  "                      standard input; repeatable" },
	{ OPT_PASSPHRASE_FILE, 0, "passphrase-file", "F",
	  "key from a passphrase, derived as e4crypt does (one\n"
	  "                      trailing newline, or CR LF, is not part of it)" },
	{ OPT_PROTECTOR_KEY_FILE, 0, "protector-key-file", "F",
	  "the 32-byte key file of an fscrypt raw_key protector,\n"
	  "                      tried against each (--passphrase-file is tried\n"
	  "                      against each passphrase and login protector)" },
	{ OPT_FSCRYPT_ROOT, 0, "fscrypt-root", "IMAGE",
	  "the root filesystem, whose /.fscrypt holds the login\n"
	  "                      protectors this one's .link files name by UUID" },
	{ OPT_ARGON2_MAX_MEMORY, 0, "argon2-max-memory", "KIB",
	  "try no fscrypt protector whose passphrase hash asks for\n"
	  "                      more memory (default 1048576, 1 GiB)" },
	{ OPT_ARGON2_MAX_TIME, 0, "argon2-max-time", "N",
	  "nor for more Argon2id passes (default 64)" },
	{ OPT_WRITE_POLICY_KEYS, 0, "write-policy-keys", "DIR",
	  "write each policy key an fscrypt protector gave as\n"
	  "                      DIR/DESCRIPTOR.key (for --key-file; secrets!)" },
	{ OPT_MEMORY, 0, "memory", "CAPTURE",
	  "keys found in a RAM capture of the running system (raw,\n"
	  "                      LiME or ELF core), as keyscan finds them; each\n"
	  "                      opens only a policy it proves to open" },
	{ OPT_IMAGE, 0, "image", "IMAGE",
	  "the disk image whose policies confirm the keys found\n"
	  "                      (--partition and --offset choose its volume)" },
	{ OPT_WRITE_KEYS, 0, "write-keys", "DIR",
	  "write each confirmed key as DIR/KEY.key, for --key-file\n"
	  "                      (v1: the master key; v2: its HKDF states;\n"
	  "                      secrets!)" },
	{ OPT_SALT, 0, "salt", "SALT",
	  "salt for --passphrase-file, as e4crypt -S: s:TEXT, 0xHEX,\n"
	  "                      a UUID, or HEX (default: s_encrypt_pw_salt)" },
	{ OPT_FORMAT, 0, "format", "F",
	  "generation of encrypted names: auto (default), 2015 or 6.1" },
	{ OPT_DUMMY_KEY, 0, "dummy-key", NULL,
	  "policies with descriptor 4242424242424242 use the 2015\n"
	  "                      test_dummy_encryption key (0x42 repeated)" },
	{ OPT_LONG, 'l', NULL, NULL,
	  "long listing: inode, type, mode, size, mtime" },
	{ OPT_RECURSIVE, 'R', NULL, NULL, "recursive listing" },
	{ OPT_FULL_TIME, 0, "full-time", NULL,
	  "long listing with atime, mtime, ctime and crtime: UTC,\n"
	  "                      ISO 8601 with nanoseconds (crtime - when none)" },
	{ OPT_OUT, 'o', NULL, "DIR", "output directory (cat: a new output FILE)" },
	{ OPT_MOUNT_OPTIONS, 'o', NULL, "OPTS",
	  "mount options for FUSE, comma-separated (e.g. allow_other)" },
	{ OPT_FOREGROUND, 'f', "foreground", NULL,
	  "stay in the foreground (unmount with Ctrl-C or fusermount3 -u)" },
	{ OPT_FORCE, 0, "force", NULL,
	  "replace existing files and symlinks in DIR (the entries\n"
	  "                      themselves, never through a symlink)" },
	{ OPT_MANIFEST, 0, "manifest", "FILE",
	  "write a tab-separated row per extracted file to FILE (made,\n"
	  "                      never replaced): path, inode, size, md5, sha1, sha256,\n"
	  "                      ciphertext_sha256, atime, mtime, ctime, crtime,\n"
	  "                      unreadable (file blocks that could not be read)" },
	{ OPT_DFXML, 0, "dfxml", "FILE",
	  "the same as DFXML (fiwalk's fileobject and hashdigest\n"
	  "                      elements) in FILE (made, never replaced)" },
	{ OPT_KEEP_LOCKED, 0, "keep-locked", NULL,
	  "write files and symlinks no key opens as their ciphertext\n"
	  "                      under their no-key names, each with a sidecar\n"
	  "                      NAME.e4dump.json (context, nonce, sizes, blocks)" },
	{ OPT_KEEP_SETID, 0, "keep-setid", NULL,
	  "keep setuid and setgid bits (dropped by default)" },
	{ OPT_XATTRS, 0, "xattrs", "[=all]",
	  "restore the image's user.* extended attributes on what\n"
	  "                      is written (as tar --xattrs); =all: security.*,\n"
	  "                      trusted.* and the POSIX ACLs too (root only)" },
	{ OPT_JSON, 0, "json", NULL,
	  "JSON Lines on stdout: one object per record (entry,\n"
	  "                      finding, diagnostic, ...), then a summary" },
	{ OPT_SEED, 0, "seed", "TEXT", "seed of the generated vectors" },
	{ OPT_CHECK, 0, "check", NULL, "recompute a vector file instead" },
	{ OPT_MAX_ENTRIES, 0, "max-entries", "N",
	  "refuse directories of more entries (default 4194304)" },
	{ OPT_MAX_DEPTH, 0, "max-depth", "N",
	  "do not enter directories nested deeper (default 8192)" },
	{ OPT_MAX_OUTPUT, 0, "max-output", "BYTES",
	  "write at most BYTES of file data in all (default: the\n"
	  "                      image's size; 0: no limit)" },
	{ OPT_PREFIX, 'm', "mount-point", "PREFIX",
	  "put PREFIX before every path, as fls -m does (the mount\n"
	  "                      point the image had)" },
	{ OPT_NANOSECONDS, 0, "nanoseconds", NULL,
	  "times as SECONDS.NNNNNNNNN (plaso and mactime read them;\n"
	  "                      mactime drops the fraction)" },
	{ OPT_NO_DELETED, 0, "no-deleted", NULL,
	  "leave out the deleted entries found in the journal" },
	{ OPT_JOURNAL_EVENTS, 0, "journal-events", NULL,
	  "add an event per committed journal transaction, at its\n"
	  "                      commit time, with what it changed" },
	{ OPT_THREADS, 0, "threads", "N",
	  "threads reading the image (default: 2 where the image\n"
	  "                      allows it; 1: none besides the main one)" },
	{ OPT_PARTITION, 0, "partition", "N",
	  "the volume in partition N of a disk (as e4dump volumes\n"
	  "                      numbers them)" },
	{ OPT_OFFSET, 0, "offset", "BYTES",
	  "the volume at BYTES into the image; with a suffix s, in\n"
	  "                      512-byte sectors (as mmls shows them)" },
	{ OPT_EVIDENCE, 0, "evidence", NULL,
	  "also read the whole media and check it against the\n"
	  "                      hashes its container stores (an E01's MD5,\n"
	  "                      SHA-1), as ewfverify does" },
	{ OPT_QUIET, 'q', "quiet", NULL,
	  "no progress line (shown on a terminal only)" },
	{ OPT_VERBOSE, 'v', "verbose", NULL,
	  "say which key opened which policy and which volume is used" },
	{ OPT_HELP, 'h', "help", NULL, "this help" },
};

#define N_DEFS (sizeof(defs) / sizeof(defs[0]))

static int number(const char *s, unsigned long *out)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	*out = strtoul(s, &end, 10);
	return *end || *out == 0 ? -1 : 0;
}

/* BYTES, or NUMBERs (512-byte sectors); 0 is allowed. */
static int offset(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (!strcmp(end, "s")) {
		if (v > ULLONG_MAX / 512)
			return -1;
		v *= 512;
	} else if (*end) {
		return -1;
	}
	*out = v;
	return 0;
}

static int apply(struct options *o, const struct opt_def *d, const char *arg,
		 const char *name, struct report *r)
{
	switch (d->id) {
	case OPT_KEY_FILE: o->key_files[o->n_key_files++] = arg; break;
	case OPT_PASSPHRASE_FILE: o->pass_files[o->n_pass_files++] = arg; break;
	case OPT_SALT: o->salt_hex = arg; break;
	case OPT_PROTECTOR_KEY_FILE:
		o->protector_key_files[o->n_protector_key_files++] = arg;
		break;
	case OPT_FSCRYPT_ROOT: o->fscrypt_root = arg; break;
	case OPT_WRITE_POLICY_KEYS: o->write_policy_keys = arg; break;
	case OPT_IMAGE: o->images[o->n_images++] = arg; break;
	case OPT_WRITE_KEYS: o->write_keys = arg; break;
	case OPT_MEMORY: o->memory[o->n_memory++] = arg; break;
	case OPT_ARGON2_MAX_MEMORY:
	case OPT_ARGON2_MAX_TIME: {
		unsigned long long v;
		char *end;

		errno = 0;
		v = (*arg >= '0' && *arg <= '9') ? strtoull(arg, &end, 10) : 0;
		if (!v || errno || *end || v > 0xffffffffull) {
			report_error(r, "%s: --%s: \"%s\" is not a number from 1 to 4294967295",
				     name, d->long_name, arg);
			return -1;
		}
		if (d->id == OPT_ARGON2_MAX_MEMORY)
			o->argon2_max_memory = v;
		else
			o->argon2_max_time = v;
		break;
	}
	case OPT_DUMMY_KEY: o->dummy_key = 1; break;
	case OPT_LONG: o->long_format = 1; break;
	case OPT_FULL_TIME: o->long_format = o->full_time = 1; break;
	case OPT_RECURSIVE: o->recursive = 1; break;
	case OPT_OUT: o->out_dir = arg; break;
	case OPT_MOUNT_OPTIONS: o->mount_options[o->n_mount_options++] = arg; break;
	case OPT_FOREGROUND: o->foreground = 1; break;
	case OPT_MANIFEST: o->manifest = arg; break;
	case OPT_DFXML: o->dfxml = arg; break;
	case OPT_KEEP_LOCKED: o->keep_locked = 1; break;
	case OPT_FORCE: o->force = 1; break;
	case OPT_QUIET: o->quiet = 1; break;
	case OPT_EVIDENCE: o->evidence = 1; break;
	case OPT_KEEP_SETID: o->keep_setid = 1; break;
	case OPT_JSON: o->json = 1; break;
	case OPT_PREFIX: o->prefix = arg; break;
	case OPT_NANOSECONDS: o->nanoseconds = 1; break;
	case OPT_NO_DELETED: o->no_deleted = 1; break;
	case OPT_JOURNAL_EVENTS: o->journal_events = 1; break;
	case OPT_SEED: o->seed = arg; break;
	case OPT_CHECK: o->check = 1; break;
	case OPT_VERBOSE: r->verbose = 1; break;
	case OPT_HELP: o->help = 1; break;
	case OPT_FORMAT:
		if (!strcmp(arg, "auto")) {
			o->format = E4_FORMAT_AUTO;
		} else if (!strcmp(arg, "2015")) {
			o->format = E4_FORMAT_2015;
		} else if (!strcmp(arg, "6.1")) {
			o->format = E4_FORMAT_61;
		} else {
			report_error(r, "%s: --format: \"%s\" is not auto, 2015 or 6.1",
				     name, arg);
			return -1;
		}
		break;
	case OPT_MAX_ENTRIES:
	case OPT_MAX_DEPTH:
	case OPT_THREADS:
		if (number(arg, d->id == OPT_MAX_DEPTH ? &o->max_depth :
				d->id == OPT_THREADS ? &o->threads :
						       &o->max_entries)) {
			report_error(r, "%s: --%s: \"%s\" is not a positive number",
				     name, d->long_name, arg);
			return -1;
		}
		break;
	case OPT_PARTITION:
		if (number(arg, &o->partition) || o->partition > 65535) {
			report_error(r, "%s: --partition: \"%s\" is not a partition number",
				     name, arg);
			return -1;
		}
		break;
	case OPT_OFFSET:
		if (offset(arg, &o->offset)) {
			report_error(r, "%s: --offset: \"%s\" is not a number of bytes (or of sectors, with s)",
				     name, arg);
			return -1;
		}
		o->by_offset = 1;
		break;
	case OPT_MAX_OUTPUT:
		if (*arg < '0' || *arg > '9' || offset(arg, &o->max_output) ||
		    strchr(arg, 's')) {
			report_error(r, "%s: --max-output: \"%s\" is not a number of bytes",
				     name, arg);
			return -1;
		}
		o->max_output_set = 1;
		break;
	case OPT_XATTRS:
		if (!arg || !strcmp(arg, "user")) {
			o->xattrs = 1;
		} else if (!strcmp(arg, "all")) {
			o->xattrs = 2;
		} else {
			report_error(r, "%s: --xattrs=%s: give user or all", name, arg);
			return -1;
		}
		break;
	case OPT_COUNT:
		break;
	}
	return 0;
}

static const struct opt_def *find_long(const char *s, size_t len,
				       opt_mask mask)
{
	for (size_t i = 0; i < N_DEFS; i++)
		if ((mask & OPT_BIT(defs[i].id)) && defs[i].long_name &&
		    strlen(defs[i].long_name) == len &&
		    !strncmp(defs[i].long_name, s, len))
			return &defs[i];
	return NULL;
}

static const struct opt_def *find_short(char c, opt_mask mask)
{
	for (size_t i = 0; i < N_DEFS; i++)
		if ((mask & OPT_BIT(defs[i].id)) && defs[i].short_name == c)
			return &defs[i];
	return NULL;
}

int options_parse(struct options *o, const char *name, opt_mask mask,
		  int argc, char **argv, int first, struct report *r)
{
	int only_args = 0;

	o->key_files = calloc((size_t)argc + 1, sizeof(*o->key_files));
	o->pass_files = calloc((size_t)argc + 1, sizeof(*o->pass_files));
	o->protector_key_files = calloc((size_t)argc + 1,
					sizeof(*o->protector_key_files));
	o->args = calloc((size_t)argc + 1, sizeof(*o->args));
	o->mount_options = calloc((size_t)argc + 1, sizeof(*o->mount_options));
	o->images = calloc((size_t)argc + 1, sizeof(*o->images));
	o->memory = calloc((size_t)argc + 1, sizeof(*o->memory));
	if (!o->key_files || !o->pass_files || !o->protector_key_files || !o->args ||
	    !o->mount_options || !o->images || !o->memory) {
		report_error(r, "out of memory");
		return -1;
	}
	for (int i = first; i < argc; i++) {
		const char *a = argv[i];
		const struct opt_def *d;

		if (only_args || a[0] != '-' || !a[1]) {
			o->args[o->n_args++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_args = 1;
			continue;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			const char *arg = eq ? eq + 1 : NULL;

			d = find_long(a + 2, len, mask);
			if (!d) {
				report_error(r, "%s: bad option \"%s\" (see e4dump %s --help)",
					     name, a, name);
				return -1;
			}
			if (d->arg && d->arg[0] == '[') {
				/* an optional argument: only after '=' */
			} else if (d->arg && !arg) {
				if (i + 1 == argc) {
					report_error(r, "%s: %s needs an argument", name, a);
					return -1;
				}
				arg = argv[++i];
			} else if (!d->arg && arg) {
				report_error(r, "%s: --%s takes no argument", name,
					     d->long_name);
				return -1;
			}
			if (apply(o, d, arg, name, r))
				return -1;
			continue;
		}
		for (const char *c = a + 1; *c; c++) {
			d = find_short(*c, mask);
			if (!d) {
				report_error(r, "%s: bad option \"-%c\" (see e4dump %s --help)",
					     name, *c, name);
				return -1;
			}
			if (d->arg) {
				const char *arg = c[1] ? c + 1 : NULL;

				if (!arg) {
					if (i + 1 == argc) {
						report_error(r, "%s: -%c needs an argument",
							     name, *c);
						return -1;
					}
					arg = argv[++i];
				}
				if (apply(o, d, arg, name, r))
					return -1;
				break;
			}
			if (apply(o, d, NULL, name, r))
				return -1;
		}
	}
	if (o->partition && o->by_offset) {
		report_error(r, "%s: --partition and --offset both choose the volume: give one",
			     name);
		return -1;
	}
	return 0;
}

void options_free(struct options *o)
{
	free(o->key_files);
	free(o->pass_files);
	free(o->protector_key_files);
	free(o->args);
	free(o->mount_options);
	free(o->images);
	free(o->memory);
}

void options_help(opt_mask mask, FILE *f)
{
	for (size_t i = 0; i < N_DEFS; i++) {
		const struct opt_def *d = &defs[i];
		char left[64];

		if (!(mask & OPT_BIT(d->id)))
			continue;
		if (d->short_name && d->long_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", d->short_name,
				 d->long_name, d->arg ? " " : "", d->arg ? d->arg : "");
		else if (d->short_name)
			snprintf(left, sizeof(left), "-%c%s%s", d->short_name,
				 d->arg ? " " : "", d->arg ? d->arg : "");
		else
			snprintf(left, sizeof(left), "--%s%s%s", d->long_name,
				 d->arg && d->arg[0] != '[' ? " " : "",
				 d->arg ? d->arg : "");
		if (strlen(left) >= 20)         /* its help on a line of its own */
			fprintf(f, "  %s\n  %-20s%s\n", left, "", d->help);
		else
			fprintf(f, "  %-20s%s\n", left, d->help);
	}
}
