/*
 * e4dump QEMU guest (/init of the test initramfs): what the files of
 * vm/guest/ share.  vm/make-image.sh compiles every .c file of vm/guest/ into
 * one static binary.
 *
 *   init.c         main, the mounts of the image, power-off
 *   commands.c     the scenario command table and the scenario loop
 *   console.c      messages, failures, power-off, allocation, paths, full writes
 *   manifest.c     the manifest buffer
 *   content.c      the content generator
 *   parse.c        the words of a scenario line
 *   entries.c      the entries of the trees, their writers and manifest lines
 *   shapes.c       the standard, small and big trees
 *   fscrypt.c      fscrypt ioctl wrappers, the v2 key identifiers
 *   dirlist.c      directory listings, plaintext paths resolved
 *   scn_*.c        the scenario commands, by topic: trees (keys, v1/v2
 *                  policies, casefold, plain, dummy), mount (remount,
 *                  forget-keys, mount-try, proc), fskey (the filesystem's
 *                  keyring), nokey (no-key probes), policy (policy probes,
 *                  inheritance), delete (the undelete scenarios), bench
 *                  (bench-tree), xattr (extended attributes), tool
 *                  (running a program of the initramfs: Debian's fscrypt), capture
 *                  (RAM captures: keys unlinked, files read, the capture step)
 *
 * The kernel ABI the guest uses is in fscrypt_abi.h.
 */
#ifndef E4DUMP_GUEST_H
#define E4DUMP_GUEST_H

#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define SCEN_MAX 65536
#define MANIFEST_OFF 65536
#define MNT "/mnt"

#include "fscrypt_abi.h"

/* fail with errno text */
#define FAILE(...) fail_errno(errno, __VA_ARGS__)

#define KEY2_MAX 16

struct extent {
	uint64_t off, len;
};

struct entry {
	char type;           /* f d l h s */
	char *rel;           /* path relative to /mnt */
	unsigned mode;       /* wanted permission bits */
	time_t mtime;        /* wanted mtime (seconds, nsec = 0) */
	uint64_t size;       /* f/s: wanted size */
	uint64_t seed;       /* f/s/h: content seed */
	char *target;        /* l: symlink target; h: rel path of the first name */
	struct extent ext[8];/* s: data extents */
	int next;
	uint64_t ino;        /* inode number read back (0 = not yet) */
	int gone;            /* removed by unlink/rmtree */
};

struct dent {
	char *name;
	unsigned char type; /* DT_* */
	uint64_t ino;
};

/* A scenario command: the line's words tok[0..ntok) (tok[0] = the name) and
 * its line number, for messages.  The table is in commands.c. */
typedef void scn_cmd_fn(char **tok, int ntok, int lineno);
struct scn_cmd {
	const char *name;
	scn_cmd_fn *run;
	const char *what; /* one line; the reference is vm/README.md */
};

/* console.c */
void finish(int ok) __attribute__((noreturn));
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void fail_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
void *xmalloc(size_t n);
char *xstrdup(const char *s);
void abs_path(char *out, size_t n, const char *rel);
void write_all(int fd, const unsigned char *p, size_t n, off_t off, const char *what);
void join(char *out, size_t n, const char *dir, const char *name);

/* manifest.c */
extern char *g_man;
extern size_t g_man_len;
void man_add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void man_hex(const void *data, size_t len);

/* content.c */
uint64_t fnv1a64(const char *s);
uint64_t splitmix64(uint64_t *state);
unsigned char *gen_content(uint64_t seed, size_t size);

/* parse.c */
size_t parse_hex(const char *s, unsigned char *out, size_t max, int lineno);
unsigned long parse_num(const char *s, unsigned long max, int lineno);
const char *parse_dir(const char *s, int lineno);
int is_hex32(const char *s);
const char *parse_tag(const char *s, int lineno);
const char *parse_relpath(const char *s, int lineno);
void parse_plainpath(const char *s, char *out, size_t n, int lineno);

/* entries.c */
extern struct entry *g_ent;
extern size_t g_nent;
struct entry *mk_dir(const char *sub, unsigned mode);
struct entry *adopt_dir(unsigned mode);
struct entry *mk_file(const char *sub, unsigned mode, uint64_t size);
struct entry *mk_sparse(const char *sub, unsigned mode, uint64_t size,
			const struct extent *ext, int n);
void prealloc(const struct entry *e, off_t off, off_t len);
struct entry *mk_symlink(const char *sub, const char *target);
struct entry *mk_hardlink(const char *sub, const struct entry *orig);
const char *mkname(char *buf, const char *prefix, size_t len);
void finish_tree(size_t first);
void start_tree(const char *dir);
struct entry *find_entry(const char *rel);
size_t late_begin(const char *rel, const char **sub, int lineno);
void late_end(size_t first);

/* shapes.c */
extern int g_casefold_opt;
void populate(char **opt, int nopt, int lineno);

/* fscrypt.c */
extern uint8_t g_last_id2[16];
extern int g_have_id2;
extern uint8_t g_key2_ids[KEY2_MAX][16];
extern int g_nkey2_ids;
void set_casefold(int fd, const char *p, int lineno);
int get_policy_fd(int fd, struct e4_get_policy_ex_arg *a);
int get_policy(const char *rel, int is_dir, struct e4_get_policy_ex_arg *a);

/* dirlist.c */
struct dent *list_dir(const char *rel, size_t *count);
void free_list(struct dent *v, size_t n);
void resolve(const char *plain, char *out, size_t outsz, int lineno);
size_t first_regular(const struct dent *v, size_t n, const char *cmd,
		     const char *rel, int lineno);

/* init.c */
extern char g_mountopts[1024];
extern int g_mounted;
void umount_img(int lineno);
void remount_img(int lineno);
void sync_mnt(void);
void drop_caches(void);

/* scn_trees.c */
void cmd_key(char **tok, int ntok, int lineno);
void cmd_key2(char **tok, int ntok, int lineno);
void cmd_tree(char **tok, int ntok, int lineno);
void cmd_tree2(char **tok, int ntok, int lineno);
void cmd_plain(char **tok, int ntok, int lineno);
void cmd_dummy_tree(char **tok, int ntok, int lineno);
void cmd_mkdir(char **tok, int ntok, int lineno);
void cmd_bigdir_names(char **tok, int ntok, int lineno);
void cmd_files(char **tok, int ntok, int lineno);

/* scn_mount.c */
void cmd_remount(char **tok, int ntok, int lineno);
void cmd_forget_keys(char **tok, int ntok, int lineno);
void cmd_mount_try(char **tok, int ntok, int lineno);
void cmd_proc(char **tok, int ntok, int lineno);

/* scn_fskey.c */
void cmd_fskey_add(char **tok, int ntok, int lineno);
void cmd_fskey_add_as(char **tok, int ntok, int lineno);
void cmd_fskey_remove(char **tok, int ntok, int lineno);
void cmd_fskey_status(char **tok, int ntok, int lineno);
void cmd_hold(char **tok, int ntok, int lineno);
void cmd_read_held(char **tok, int ntok, int lineno);
void cmd_release(char **tok, int ntok, int lineno);
void cmd_remember(char **tok, int ntok, int lineno);
void cmd_recheck(char **tok, int ntok, int lineno);

/* scn_nokey.c */
void cmd_touch_names(char **tok, int ntok, int lineno);
void cmd_stat_name(char **tok, int ntok, int lineno);
void cmd_unlink_name(char **tok, int ntok, int lineno);
void cmd_readdir(char **tok, int ntok, int lineno);
void cmd_nokey_ops(char **tok, int ntok, int lineno);
void cmd_unlink_first(char **tok, int ntok, int lineno);
void cmd_exists(char **tok, int ntok, int lineno);
void cmd_lookup_all(char **tok, int ntok, int lineno);
void cmd_open_all(char **tok, int ntok, int lineno);

/* scn_policy.c */
void cmd_xattr_set(char **tok, int ntok, int lineno);
void cmd_xattr_list(char **tok, int ntok, int lineno);
void cmd_policy_try(char **tok, int ntok, int lineno);
void cmd_policy_nonempty(char **tok, int ntok, int lineno);
void cmd_inherit(char **tok, int ntok, int lineno);

/* scn_delete.c */
void cmd_sync(char **tok, int ntok, int lineno);
void cmd_churn(char **tok, int ntok, int lineno);
void cmd_sparse(char **tok, int ntok, int lineno);
void cmd_unlink(char **tok, int ntok, int lineno);
void cmd_rmtree(char **tok, int ntok, int lineno);

/* scn_tool.c */
void cmd_mount_extra(char **tok, int ntok, int lineno);
void umount_extra(void);
void cmd_uuid_links(char **tok, int ntok, int lineno);
void cmd_seed_random(char **tok, int ntok, int lineno);
void cmd_setenv(char **tok, int ntok, int lineno);
void cmd_secret(char **tok, int ntok, int lineno);
void cmd_user(char **tok, int ntok, int lineno);
void cmd_fscrypt_conf(char **tok, int ntok, int lineno);
void cmd_fscrypt_dir(char **tok, int ntok, int lineno);
void cmd_run(char **tok, int ntok, int lineno);
void cmd_fill(char **tok, int ntok, int lineno);

/* scn_capture.c */
extern int g_capture;
void cmd_key_unlink(char **tok, int ntok, int lineno);
void cmd_key_revoke(char **tok, int ntok, int lineno);
void cmd_drop_caches(char **tok, int ntok, int lineno);
void cmd_read_all(char **tok, int ntok, int lineno);
void cmd_capture(char **tok, int ntok, int lineno);
void capture_wait(void) __attribute__((noreturn));

/* scn_bench.c */
void cmd_bench_tree(char **tok, int ntok, int lineno);

/* scn_jchurn.c */
void cmd_journal_churn(char **tok, int ntok, int lineno);

/* commands.c */
void run_scenario(char *text);

#endif
