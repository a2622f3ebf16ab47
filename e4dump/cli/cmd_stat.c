/* e4dump stat: one inode as istat and debugfs's stat show it, with its
 * encryption context decoded and what opens it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "blockmap.h"
#include "commands.h"
#include "dir.h"
#include "escape.h"
#include "inode.h"
#include "modes.h"
#include "nokey.h"
#include "session.h"

/* i_flags by the kernel's names (fs/ext4/ext4.h EXT4_*_FL). */
static const struct {
	uint32_t bit;
	const char *name;
} inode_flags[] = {
	{ 0x00000001, "SECRM" }, { 0x00000002, "UNRM" },
	{ 0x00000004, "COMPR" }, { 0x00000008, "SYNC" },
	{ 0x00000010, "IMMUTABLE" }, { 0x00000020, "APPEND" },
	{ 0x00000040, "NODUMP" }, { 0x00000080, "NOATIME" },
	{ 0x00000100, "DIRTY" }, { 0x00000200, "COMPRBLK" },
	{ 0x00000400, "NOCOMPR" }, { 0x00000800, "ENCRYPT" },
	{ 0x00001000, "INDEX" }, { 0x00002000, "IMAGIC" },
	{ 0x00004000, "JOURNAL_DATA" }, { 0x00008000, "NOTAIL" },
	{ 0x00010000, "DIRSYNC" }, { 0x00020000, "TOPDIR" },
	{ 0x00040000, "HUGE_FILE" }, { 0x00080000, "EXTENTS" },
	{ 0x00100000, "VERITY" }, { 0x00200000, "EA_INODE" },
	{ 0x02000000, "DAX" }, { 0x10000000, "INLINE_DATA" },
	{ 0x20000000, "PROJINHERIT" }, { 0x40000000, "CASEFOLD" },
};

static const char *type_name(uint16_t mode)
{
	switch (mode & E4_S_IFMT) {
	case E4_S_IFDIR: return "directory";
	case E4_S_IFREG: return "regular file";
	case E4_S_IFLNK: return "symbolic link";
	case E4_S_IFCHR: return "character device";
	case E4_S_IFBLK: return "block device";
	case E4_S_IFIFO: return "fifo";
	case E4_S_IFSOCK: return "socket";
	}
	return "unknown";
}

static void print_flags(uint32_t flags)
{
	const char *sep = "";

	printf("flags: 0x%08" PRIx32 " (", flags);
	for (size_t i = 0; i < sizeof(inode_flags) / sizeof(inode_flags[0]); i++)
		if (flags & inode_flags[i].bit) {
			printf("%s%s", sep, inode_flags[i].name);
			flags &= ~inode_flags[i].bit;
			sep = "|";
		}
	for (int b = 0; b < 32; b++)
		if (flags & (1u << b)) {
			printf("%s0x%08x", sep, 1u << b);
			sep = "|";
		}
	printf(")\n");
}

/* ISO 8601, UTC, nanoseconds: 2021-01-07T06:30:00.000000000Z */
static void print_time(const char *name, const struct e4_timestamp *ts)
{
	time_t t = (time_t)ts->sec;
	struct tm tm;
	char buf[64];

	if (!gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf, sizeof(buf), "%" PRId64 "s", ts->sec);
	printf("%s: %s.%09" PRIu32 "Z\n", name, buf, ts->nsec);
}

static int print_run(void *arg, const struct e4_run *r)
{
	(void)arg;
	printf("  %" PRIu64 "-%" PRIu64 " -> %" PRIu64 "-%" PRIu64 " (%" PRIu64 " block%s%s)\n",
	       r->lblk, r->lblk + r->len - 1, r->pblk, r->pblk + r->len - 1, r->len,
	       r->len == 1 ? "" : "s", r->unwritten ? ", unwritten" : "");
	return 0;
}

static void print_hex(const char *name, const uint8_t *p, size_t n)
{
	printf("%s", name);
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
}

static void print_context(struct session *s, const struct e4_inode *in,
			  const char *path)
{
	struct e4_context c;
	struct e4_policy_key pk;
	const char *why = NULL;
	char flags[E4_FLAGS_NAME_MAX];
	enum e4_status st = e4_inode_context(s->fs, in, &c, &why);

	if (st == E4_NOT_FOUND) {
		printf("encryption: none%s\n", in->encrypted ? " (the encrypt flag is set: no context)" : "");
		return;
	}
	if (st != E4_OK && st != E4_UNRECOGNIZED) {
		printf("encryption: context unreadable (%s)\n", why ? why : e4_status_str(st));
		return;
	}
	e4_policy_flags_name(c.flags, flags);
	printf("encryption: policy v%u%s\n", c.version,
	       st == E4_UNRECOGNIZED ? " (not one Linux 6.1 knows)" : "");
	printf("  contents: %s (%u)\n", e4_mode_name(c.contents_mode), c.contents_mode);
	printf("  filenames: %s (%u)\n", e4_mode_name(c.filenames_mode), c.filenames_mode);
	printf("  policy flags: 0x%02x (%s)\n", c.flags, flags);
	print_hex(c.version == E4_CONTEXT_V1 ? "  descriptor: " : "  identifier: ",
		  c.key_id, c.key_id_size);
	print_hex("  nonce: ", c.nonce, sizeof(c.nonce));
	if (st != E4_OK)
		return;
	e4_fs_policy_key(s->fs, &c, &pk);
	if (pk.open && pk.key >= 0)
		printf("  key: %s (%s)\n", e4_keystore_key(s->keys, (size_t)pk.key)->label, pk.how);
	else if (pk.open)
		printf("  key: %s\n", pk.how);
	else
		printf("  key: none opens it (%s)\n",
		       e4_keystore_count(s->keys) ? pk.how : "no key given");
	(void)path;
}

/* The no-key name of path's last component, shown by its parent (when
 * that is an encrypted directory). */
static void print_nokey_name(struct session *s, const char *path, uint32_t ino)
{
	const char *slash = strrchr(path, '/');
	char *parent, nk[E4_NOKEY_NAME_MAX + 1];
	uint32_t pino;
	struct e4_inode pin;
	struct e4_dir *d = NULL;
	const char *name = slash ? slash + 1 : path;

	if (path[0] == '<' || !*name)
		return;
	parent = strndup(path, slash ? (size_t)(slash - path) : 0);
	if (!parent)
		return;
	if (e4_path_lookup(s->fs, *parent ? parent : "/", &pino) == E4_OK &&
	    e4_inode_read(s->fs, pino, parent, &pin) == E4_OK &&
	    e4_dir_list(s->fs, &pin, parent, E4_LIST_QUIET, &d) == E4_OK &&
	    e4_dir_facts(d)->encrypted) {
		size_t i = e4_dir_find(s->fs, d, (const uint8_t *)name, strlen(name));
		struct e4_entry e;

		if (i < e4_dir_count(d)) {
			e4_dir_get(d, i, &e);
			if (e.ino == ino) {
				e4_dir_nokey_name(s->fs, d, i, nk);
				printf("no-key name: %s\n", nk);
			}
		}
	}
	e4_dir_free(d);
	free(parent);
}

int cmd_stat(const struct options *o, struct report *r)
{
	struct session s;
	struct e4_inode in;
	const char *path = o->args[1];
	char *shown = malloc(E4_ESCAPE_SIZE(strlen(path)));
	uint32_t ino;
	uint64_t size;
	int rc = session_open(&s, o, r, 1);

	if (rc || !shown) {
		free(shown);
		if (!rc)
			session_close(&s);
		return rc ? rc : EXIT_FATAL;
	}
	e4_escape((const uint8_t *)path, strlen(path), shown, 0);
	if (e4_path_lookup(s.fs, path, &ino) != E4_OK ||
	    e4_inode_read(s.fs, ino, shown, &in) != E4_OK) {
		free(shown);
		session_close(&s);
		return EXIT_SKIPPED;
	}
	size = in.size;
	if (E4_ISLNK(in.mode)) {
		char *target;
		size_t len;

		if (e4_symlink_read(s.fs, &in, shown, &target, &len) == E4_OK) {
			size = len;
			free(target);
		} else {
			e4_symlink_locked_size(s.fs, &in, shown, &size);
		}
	}
	printf("path: %s\ninode: %" PRIu32 "\ntype: %s\nmode: %04o\n", shown, ino,
	       type_name(in.mode), in.mode & 07777);
	printf("uid: %" PRIu32 "\ngid: %" PRIu32 "\nsize: %" PRIu64 "\n", in.uid, in.gid, size);
	if (size != in.size)
		printf("stored size: %" PRIu64 "\n", in.size);
	printf("links: %u\n", in.links);
	print_flags(in.flags);
	printf("generation: %" PRIu32 "\n", in.generation);
	print_time("atime", &in.atime);
	print_time("mtime", &in.mtime);
	print_time("ctime", &in.ctime);
	if (in.has_crtime)
		print_time("crtime", &in.crtime);
	printf("blocks (logical -> physical):\n");
	if ((E4_ISREG(in.mode) || E4_ISDIR(in.mode) || (E4_ISLNK(in.mode) && in.blocks)) &&
	    !(in.flags & E4_INODE_INLINE_DATA_FL))
		e4_inode_map(s.fs, &in, shown, UINT64_MAX, print_run, NULL);
	print_context(&s, &in, shown);
	print_nokey_name(&s, path, ino);
	free(shown);
	rc = session_status(&s);
	session_close(&s);
	return finish_stdout(rc, r);
}
