/* e4dump mount: a read-only FUSE view of the decrypted tree.
 *
 * libfuse3's low-level API: the kernel asks by inode number (lookup of a
 * name in a parent, getattr, read of an inode), which is how the library
 * reads ext4 too, so no path is resolved again per call and st_ino is the
 * image's own inode number.  Bounded caches: the listings of the last
 * directories read and the open file handles (each holding its per-file
 * cipher).
 *
 * Threads: libfuse's multi-threaded loop with MOUNT_THREADS workers.  A
 * struct e4_fs is used by one thread at a time, so every handler but read
 * runs under the mount's lock (m->lock: the filesystem, both caches, the
 * clock).  A read holds the lock only to take one of its file's handles
 * (fslot.f[]: the one opened, and a second made by e4_file_dup once two
 * reads of the file have met) and to give it back; it decrypts without it
 * when e4_fs_concurrent_reads says the image's source may be read from
 * several threads (else under the lock).  Messages go out under their own
 * lock (m->rlock): the library's diagnostics come from reading threads
 * too. */
#define FUSE_USE_VERSION 312 /* fuse_loop_cfg_*: the threads' number */
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include "dynlib.h"
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "blockset.h"
#include "commands.h"
#include "context.h"
#include "dir.h"
#include "file.h"
#include "hex.h"
#include "inode.h"
#include "linkfacts.h"
#include "jsonout.h"
#include "session.h"
#include "walk.h"
#include "xattrs.h"

#define DIR_CACHE 16            /* directory listings kept, */
#define DIR_CACHE_ENTRIES (1u << 20) /* with at most this many entries
				      * besides the newest */
#define FILE_CACHE 64           /* open file handles (ciphers) kept */
#define MOUNT_THREADS 2         /* libfuse's workers, and handles per file */
#define TIMEOUT 86400.0         /* the image never changes */
#define CONTEXT_XATTR "user.e4dump.context"

struct dslot {
	uint32_t ino;
	struct e4_dir *d;
	uint64_t used;
};

/* f[0] is the handle opened; f[i > 0], made when reads meet, are its
 * e4_file_dup copies.  busy: bit i while a read uses f[i] (under
 * m->lock).  A slot is reused only with no opens (refs), so never while
 * a read uses it: the kernel releases a file after its reads' replies. */
struct fslot {
	uint32_t ino;
	struct e4_file *f[MOUNT_THREADS];
	unsigned int busy;
	int want_more;                  /* a read waited for a handle */
	unsigned int refs;
	uint64_t used;
};

struct mount {
	pthread_mutex_t lock;           /* the filesystem, caches, clock */
	pthread_cond_t handle_free;     /* a read gave its handle back */
	pthread_mutex_t rlock;          /* messages */
	int concurrent;                 /* e4_fs_concurrent_reads */
	struct session *s;
	int keep_locked;
	uint32_t first_ino;             /* s_first_ino: below it, reserved */
	size_t cached_entries;          /* in the listings kept */
	uint64_t clock;
	struct dslot dirs[DIR_CACHE];
	struct fslot files[FILE_CACHE];
	unsigned int block_size;
	/* Each directory's one name: the first the walker (walk.h) meets,
	 * depth first in listing order, as ls and extract keep it: directory
	 * inode -> the directory it is named in (one slot per directory) */
	struct e4_blockset parent_of;
	int walking;                    /* its walk: messages are ls's */
	struct report *r;
};

/* A message from a handler (under m->lock; readers may report at once) */
#define REPORT_AT(m, ...) \
	do { \
		pthread_mutex_lock(&(m)->rlock); \
		report_error_at(__VA_ARGS__); \
		pthread_mutex_unlock(&(m)->rlock); \
	} while (0)

static void slot_close(struct fslot *s)
{
	for (size_t i = 0; i < MOUNT_THREADS; i++) {
		e4_file_close(s->f[i]);
		s->f[i] = NULL;
	}
}

/* FUSE's root is node 1; the image's is inode 2 (inode 1 is never shown). */
static uint32_t to_ino(fuse_ino_t n)
{
	return n == FUSE_ROOT_ID ? E4_ROOT_INO : (uint32_t)n;
}

static fuse_ino_t to_node(uint32_t ino)
{
	return ino == E4_ROOT_INO ? FUSE_ROOT_ID : ino;
}

static struct mount *M(fuse_req_t req)
{
	return E4_FUSE->req_userdata(req);
}

static void fill_stat(struct mount *m, const struct e4_inode *in, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = in->ino;
	st->st_mode = in->mode;
	st->st_nlink = in->links;
	st->st_uid = in->uid;
	st->st_gid = in->gid;
	/* what the kernel's stat gives: a symlink's target length */
	st->st_size = (off_t)inode_stat_size(m->s, in, NULL);
	st->st_blocks = (blkcnt_t)in->blocks;
	st->st_blksize = m->block_size;
	st->st_atim.tv_sec = in->atime.sec;
	st->st_atim.tv_nsec = in->atime.nsec;
	st->st_mtim.tv_sec = in->mtime.sec;
	st->st_mtim.tv_nsec = in->mtime.nsec;
	st->st_ctim.tv_sec = in->ctime.sec;
	st->st_ctim.tv_nsec = in->ctime.nsec;
}

static int read_inode(struct mount *m, uint32_t ino, struct e4_inode *in)
{
	switch (e4_inode_read(m->s->fs, ino, NULL, in)) {
	case E4_OK:
		return in->in_use ? 0 : ENOENT;
	case E4_INVALID:
		return ENOENT;
	default:
		return EIO;     /* reported */
	}
}

/* The listing of directory ino, from the cache or read now. */
static int listing(struct mount *m, uint32_t ino, struct e4_dir **out)
{
	struct dslot *victim = &m->dirs[0];
	struct e4_inode in;
	int err;

	for (size_t i = 0; i < DIR_CACHE; i++) {
		if (m->dirs[i].d && m->dirs[i].ino == ino) {
			m->dirs[i].used = ++m->clock;
			*out = m->dirs[i].d;
			return 0;
		}
		if (!m->dirs[i].d || m->dirs[i].used < victim->used)
			victim = &m->dirs[i];
	}
	err = read_inode(m, ino, &in);
	if (err)
		return err;
	if (!E4_ISDIR(in.mode))
		return ENOTDIR;
	if (e4_dir_list(m->s->fs, &in, NULL, 0, out) != E4_OK)
		return EIO;     /* reported */
	if (victim->d)
		m->cached_entries -= e4_dir_count(victim->d);
	e4_dir_free(victim->d);
	victim->d = *out;
	victim->ino = ino;
	victim->used = ++m->clock;
	m->cached_entries += e4_dir_count(*out);
	/* bounded in entries too: the oldest others go first */
	while (m->cached_entries - e4_dir_count(*out) > DIR_CACHE_ENTRIES) {
		struct dslot *old = NULL;

		for (size_t i = 0; i < DIR_CACHE; i++)
			if (m->dirs[i].d && &m->dirs[i] != victim &&
			    (!old || m->dirs[i].used < old->used))
				old = &m->dirs[i];
		if (!old)
			break;
		m->cached_entries -= e4_dir_count(old->d);
		e4_dir_free(old->d);
		old->d = NULL;
	}
	return 0;
}

/* Entry i of listing d (of directory dir) names directory ino: 1 (and a
 * message) when it is not the directory's one name, the first the walk
 * met: in another directory, or an earlier entry of this one. */
static int second_name(struct mount *m, uint32_t dir, const struct e4_dir *d,
		       size_t i, uint32_t ino, const char *name)
{
	uint32_t first = dir;

	/* a directory the walk did not reach (nested deeper than it goes)
	 * has no other name it knows: this one */
	switch (e4_blockset_claim(&m->parent_of, ino, dir, &first)) {
	case -1:
		REPORT_AT(m, m->s->report, name, ino, "out of memory");
		return 1;
	case 2:
		break;
	default: {
		/* here first: unless an earlier entry of here names it too */
		size_t j;

		for (j = 0; j < i; j++) {
			struct e4_entry e;

			e4_dir_get(d, j, &e);
			if (e.ino == ino)
				break;
		}
		if (j == i)
			return 0;
		break;
	}
	}
	REPORT_AT(m, m->s->report, name, ino,
			"a second name of directory inode %" PRIu32 " (its first is in directory "
			"inode %" PRIu32 "; ext4 directories have one parent): not shown, "
			"as ls and extract do not enter it", ino, first);
	return 1;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mount *m = M(req);
	struct fuse_entry_param e;
	struct e4_dir *d;
	struct e4_entry ent;
	struct e4_inode in;
	size_t i;
	int err = listing(m, to_ino(parent), &d);

	if (err) {
		E4_FUSE->reply_err(req, err);
		return;
	}
	i = e4_dir_find(m->s->fs, d, (const uint8_t *)name, strlen(name));
	if (i == e4_dir_count(d)) {
		E4_FUSE->reply_err(req, ENOENT);
		return;
	}
	e4_dir_get(d, i, &ent);
	/* the root (FUSE's node 1) or a reserved inode under a name: the
	 * kernel would take it for the root; an entry naming an unused
	 * inode is damage too */
	if (ent.ino == E4_ROOT_INO || ent.ino < m->first_ino) {
		REPORT_AT(m, m->s->report, name, ent.ino,
				"the entry names %s inode %" PRIu32 ": not shown",
				ent.ino == E4_ROOT_INO ? "the root" : "the reserved", ent.ino);
		E4_FUSE->reply_err(req, EIO);
		return;
	}
	err = read_inode(m, ent.ino, &in);
	if (err == ENOENT) {
		REPORT_AT(m, m->s->report, name, ent.ino,
				"the entry names inode %" PRIu32 ", which is not in use", ent.ino);
		err = EIO;
	}
	if (!err && E4_ISDIR(in.mode) && second_name(m, to_ino(parent), d, i, ent.ino, name))
		err = EIO;
	if (err) {
		E4_FUSE->reply_err(req, err);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = to_node(ent.ino);
	e.generation = in.generation;
	e.attr_timeout = TIMEOUT;
	e.entry_timeout = TIMEOUT;
	fill_stat(m, &in, &e.attr);
	E4_FUSE->reply_entry(req, &e);
}

static void op_getattr(fuse_req_t req, fuse_ino_t node, struct fuse_file_info *fi)
{
	struct mount *m = M(req);
	struct e4_inode in;
	struct stat st;
	int err = read_inode(m, to_ino(node), &in);

	(void)fi;
	if (err) {
		E4_FUSE->reply_err(req, err);
		return;
	}
	fill_stat(m, &in, &st);
	E4_FUSE->reply_attr(req, &st, TIMEOUT);
}

static void op_readlink(fuse_req_t req, fuse_ino_t node)
{
	struct mount *m = M(req);
	struct e4_inode in;
	char nk[E4_NOKEY_NAME_MAX + 1], *target;
	size_t len;
	int err = read_inode(m, to_ino(node), &in);

	if (err || !E4_ISLNK(in.mode)) {
		E4_FUSE->reply_err(req, err ? err : EINVAL);
		return;
	}
	if (inode_locked(m->s, &in)) {
		/* what readlink gives without the key */
		if (e4_symlink_locked_target(m->s->fs, &in, NULL, nk) != E4_OK)
			E4_FUSE->reply_err(req, EIO);
		else
			E4_FUSE->reply_readlink(req, nk);
		return;
	}
	if (e4_symlink_read(m->s->fs, &in, NULL, &target, &len) != E4_OK) {
		E4_FUSE->reply_err(req, EIO);
		return;
	}
	/* the kernel takes at most PAGE_SIZE - 1 bytes */
	if (len >= 4095)
		E4_FUSE->reply_err(req, ENAMETOOLONG);
	else
		E4_FUSE->reply_readlink(req, target);
	free(target);
}

static void op_opendir(fuse_req_t req, fuse_ino_t node, struct fuse_file_info *fi)
{
	struct e4_dir *d;
	int err = listing(M(req), to_ino(node), &d);

	if (err)
		E4_FUSE->reply_err(req, err);
	else
		E4_FUSE->reply_open(req, fi);
}

static void op_readdir(fuse_req_t req, fuse_ino_t node, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct mount *m = M(req);
	struct e4_dir *d;
	char *buf;
	size_t used = 0;
	int err = listing(m, to_ino(node), &d);

	(void)fi;
	if (err) {
		E4_FUSE->reply_err(req, err);
		return;
	}
	buf = malloc(size ? size : 1);
	if (!buf) {
		E4_FUSE->reply_err(req, ENOMEM);
		return;
	}
	/* offsets: 0 ".", 1 "..", 2 + i the listing's entry i */
	for (size_t k = off < 0 ? 0 : (size_t)off; k < e4_dir_count(d) + 2; k++) {
		char name[E4_NOKEY_NAME_MAX + 256];
		struct stat st;
		size_t need;

		memset(&st, 0, sizeof(st));
		if (k < 2) {
			strcpy(name, k ? ".." : ".");
			st.st_ino = to_ino(node);
			st.st_mode = S_IFDIR;
		} else {
			struct e4_entry e;

			e4_dir_get(d, k - 2, &e);
			/* a name no path can hold (a hostile plaintext
			 * name): the kernel would fail the whole readdir */
			if (e.name_len >= sizeof(name) || !e.name_len ||
			    memchr(e.name, '/', e.name_len) || memchr(e.name, 0, e.name_len) ||
			    (e.name[0] == '.' && (e.name_len == 1 ||
						  (e.name_len == 2 && e.name[1] == '.'))))
				continue;
			memcpy(name, e.name, e.name_len);
			name[e.name_len] = 0;
			st.st_ino = e.ino;
			st.st_mode = (mode_t)(e.file_type == 2 ? S_IFDIR :
					      e.file_type == 7 ? S_IFLNK :
					      e.file_type == 1 ? S_IFREG : 0);
		}
		need = E4_FUSE->add_direntry(req, buf + used, size - used, name, &st,
					 (off_t)(k + 1));
		if (need > size - used)
			break;
		used += need;
	}
	E4_FUSE->reply_buf(req, buf, used);
	free(buf);
}

static void op_releasedir(fuse_req_t req, fuse_ino_t node, struct fuse_file_info *fi)
{
	(void)node;
	(void)fi;
	E4_FUSE->reply_err(req, 0);
}

/* An open handle of inode ino, shared by every open of it. */
static int file_get(struct mount *m, uint32_t ino, struct fslot **out)
{
	struct fslot *victim = NULL;
	struct e4_inode in;
	enum e4_status st;
	int err;

	for (size_t i = 0; i < FILE_CACHE; i++) {
		if (m->files[i].f[0] && m->files[i].ino == ino) {
			m->files[i].refs++;
			m->files[i].used = ++m->clock;
			*out = &m->files[i];
			return 0;
		}
		if (!m->files[i].refs &&
		    (!victim || !m->files[i].f[0] || m->files[i].used < victim->used))
			if (!victim || victim->f[0])
				victim = &m->files[i];
	}
	err = read_inode(m, ino, &in);
	if (err)
		return err;
	if (!E4_ISREG(in.mode))
		return E4_ISDIR(in.mode) ? EISDIR : EINVAL;
	if (inode_locked(m->s, &in) && !m->keep_locked)
		return EACCES;  /* the kernel: ENOKEY, which FUSE cannot give */
	if (!victim) {
		/* every slot in use by open files: one more handle, uncached */
		victim = calloc(1, sizeof(*victim));
		if (!victim)
			return ENOMEM;
		victim->ino = 0;
	} else {
		slot_close(victim);
	}
	st = inode_locked(m->s, &in) ? e4_file_open_raw(m->s->fs, &in, NULL, &victim->f[0])
				     : e4_file_open(m->s->fs, &in, NULL, &victim->f[0]);
	if (st != E4_OK) {
		if (victim < m->files || victim >= m->files + FILE_CACHE)
			free(victim);
		return st == E4_NO_KEY ? EACCES : EIO;
	}
	/* no keep-going: a block that cannot be read is EIO (and a message),
	 * never zeros */
	victim->ino = ino;
	victim->busy = 0;
	victim->want_more = 0;
	victim->refs = 1;
	victim->used = ++m->clock;
	*out = victim;
	return 0;
}

static void file_put(struct mount *m, struct fslot *s)
{
	if (s < m->files || s >= m->files + FILE_CACHE) {
		slot_close(s);
		free(s);
		return;
	}
	if (s->refs)
		s->refs--;
}

static void op_open(fuse_req_t req, fuse_ino_t node, struct fuse_file_info *fi)
{
	struct fslot *s;
	int err;

	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC)) {
		E4_FUSE->reply_err(req, EROFS);
		return;
	}
	err = file_get(M(req), to_ino(node), &s);
	if (err) {
		E4_FUSE->reply_err(req, err);
		return;
	}
	fi->fh = (uint64_t)(uintptr_t)s;
	fi->keep_cache = 1;
	E4_FUSE->reply_open(req, fi);
}

/* A handle of s no other read uses (under m->lock): a free one, else
 * wait for one.  A read that had to wait asks for one more: the next to
 * find f[0] free copies it (e4_file_dup reads f[0], so never while a read
 * uses it), while there is room and reads may decrypt at once. */
static unsigned int handle_take(struct mount *m, struct fslot *s)
{
	for (;;) {
		unsigned int n = 0;

		while (n < MOUNT_THREADS && s->f[n])
			n++;
		if (s->want_more && n < MOUNT_THREADS && !(s->busy & 1u)) {
			if (e4_file_dup(s->f[0], &s->f[n]) == E4_OK)
				n++;
			s->want_more = 0;
		}
		for (unsigned int i = 0; i < n; i++)
			if (!(s->busy & (1u << i))) {
				s->busy |= 1u << i;
				return i;
			}
		s->want_more = m->concurrent;
		pthread_cond_wait(&m->handle_free, &m->lock);
	}
}

static void op_read(fuse_req_t req, fuse_ino_t node, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct mount *m = M(req);
	struct fslot *s = (struct fslot *)(uintptr_t)fi->fh;
	char *buf = malloc(size ? size : 1);
	size_t got = 0;
	enum e4_status st;
	unsigned int h;

	(void)node;
	if (!buf || off < 0) {
		int err = buf ? EIO : ENOMEM;

		free(buf);
		E4_FUSE->reply_err(req, err);
		return;
	}
	pthread_mutex_lock(&m->lock);
	h = handle_take(m, s);
	if (m->concurrent) {
		pthread_mutex_unlock(&m->lock);
		st = e4_file_pread(s->f[h], (uint64_t)off, buf, size, &got);
		pthread_mutex_lock(&m->lock);
	} else {
		st = e4_file_pread(s->f[h], (uint64_t)off, buf, size, &got);
	}
	s->busy &= ~(1u << h);
	pthread_cond_broadcast(&m->handle_free);
	pthread_mutex_unlock(&m->lock);
	if (st != E4_OK)
		E4_FUSE->reply_err(req, EIO);
	else
		E4_FUSE->reply_buf(req, buf, got);
	free(buf);
}

static void op_release(fuse_req_t req, fuse_ino_t node, struct fuse_file_info *fi)
{
	(void)node;
	file_put(M(req), (struct fslot *)(uintptr_t)fi->fh);
	E4_FUSE->reply_err(req, 0);
}

static void op_statfs(fuse_req_t req, fuse_ino_t node)
{
	struct mount *m = M(req);
	struct e4_fs_info fi;
	struct statvfs sv;

	(void)node;
	e4_fs_get_info(m->s->fs, &fi);
	memset(&sv, 0, sizeof(sv));
	sv.f_bsize = fi.block_size;
	sv.f_frsize = fi.block_size;
	sv.f_blocks = fi.blocks_count;
	sv.f_files = fi.inodes_count;
	sv.f_namemax = 255;
	sv.f_flag = ST_RDONLY;
	E4_FUSE->reply_statfs(req, &sv);
}

/* user.e4dump.context: the encryption context, decoded, one line. */
static int context_text(struct mount *m, uint32_t ino, char *out, size_t size)
{
	struct e4_inode in;
	struct e4_context c;
	const char *why;
	char id[33], flags[128], nonce[2 * E4_NONCE_SIZE + 1];
	int err = read_inode(m, ino, &in);

	if (err)
		return -err;
	if (!in.encrypted)
		return -ENODATA;
	if (e4_inode_context(m->s->fs, &in, &c, &why) != E4_OK)
		return -EIO;
	e4_context_key_id_hex(&c, id);
	e4_policy_flags_name(c.flags, flags);
	e4_hex_encode(c.nonce, sizeof(c.nonce), nonce);
	return snprintf(out, size, "v%d %s=%s contents=%u filenames=%u flags=%s nonce=%s",
			c.version == E4_CONTEXT_V1 ? 1 : 2,
			c.version == E4_CONTEXT_V1 ? "descriptor" : "identifier", id,
			c.contents_mode, c.filenames_mode, flags, nonce);
}

/* The image's attributes the caller would see on the kernel's mount of
 * it: what ext4 lists (xattrs.h; the POSIX ACLs in the VFS form the
 * kernel converts ext4's own to, one Linux would refuse giving EIO);
 * trusted.* only for root
 * (ext4_xattr_trusted_list: CAP_SYS_ADMIN; getxattr is checked by the
 * VFS itself); user.* only on files and directories (Linux refuses them
 * elsewhere before asking). */
static int served(const struct e4_inode *in, const struct xattr_one *x, uid_t caller)
{
	switch (x->index) {
	case E4_XATTR_INDEX_USER:
		return E4_ISREG(in->mode) || E4_ISDIR(in->mode);
	case E4_XATTR_INDEX_TRUSTED:
		return caller == 0;
	default:
		return 1;
	}
}

/* The image's attributes of inode ino (served ones), or -errno. */
static int image_xattrs(fuse_req_t req, uint32_t ino, struct e4_inode *in,
			struct xattr_set *set)
{
	struct mount *m = M(req);
	uid_t caller = E4_FUSE->req_ctx(req)->uid;
	size_t k = 0;
	int err = read_inode(m, ino, in);

	set->v = NULL;
	set->n = 0;
	if (err)
		return -err;
	if (xattrs_collect(m->s->fs, in, NULL, set) == E4_NOMEM && !set->n)
		return -ENOMEM;
	for (size_t i = 0; i < set->n; i++) {
		if (served(in, &set->v[i], caller)) {
			set->v[k++] = set->v[i];
		} else {
			free(set->v[i].name);
			free(set->v[i].value);
		}
	}
	set->n = k;
	return 0;
}

static void reply_value(fuse_req_t req, const void *v, size_t n, size_t size)
{
	if (!size)
		E4_FUSE->reply_xattr(req, n);
	else if (n > size)
		E4_FUSE->reply_err(req, ERANGE);
	else
		E4_FUSE->reply_buf(req, v, n);
}

/* The image's own attribute first: an image's own user.e4dump.context
 * wins over the virtual one (the evidence is never hidden behind what the
 * tool makes up; stat still shows the context). */
static void op_getxattr(fuse_req_t req, fuse_ino_t node, const char *name, size_t size)
{
	char text[512];
	struct e4_inode in;
	struct xattr_set set;
	int n = image_xattrs(req, to_ino(node), &in, &set);

	if (n < 0) {
		E4_FUSE->reply_err(req, -n);
		return;
	}
	for (size_t i = 0; i < set.n; i++)
		if (!strcmp(set.v[i].name, name)) {
			if (set.v[i].value)
				reply_value(req, set.v[i].value, set.v[i].len, size);
			else
				E4_FUSE->reply_err(req, set.v[i].none ? ENODATA : EIO);
			xattrs_free(&set);
			return;
		}
	xattrs_free(&set);
	if (strcmp(name, CONTEXT_XATTR)) {
		E4_FUSE->reply_err(req, ENODATA);
		return;
	}
	n = context_text(M(req), to_ino(node), text, sizeof(text));
	if (n < 0)
		E4_FUSE->reply_err(req, -n);
	else
		reply_value(req, text, (size_t)n, size);
}

static void op_listxattr(fuse_req_t req, fuse_ino_t node, size_t size)
{
	char text[512], *list = NULL;
	size_t n = 0, len;
	struct e4_inode in;
	struct xattr_set set;
	int own_context = 0, err = image_xattrs(req, to_ino(node), &in, &set);

	if (err < 0) {
		E4_FUSE->reply_err(req, -err);
		return;
	}
	for (size_t i = 0; i < set.n; i++) {
		n += strlen(set.v[i].name) + 1;
		own_context |= !strcmp(set.v[i].name, CONTEXT_XATTR);
	}
	/* Linux refuses user.* attributes on symlinks before asking: do not
	 * offer one that cannot be read */
	if (!own_context && !E4_ISLNK(in.mode) &&
	    context_text(M(req), to_ino(node), text, sizeof(text)) >= 0)
		n += sizeof(CONTEXT_XATTR);
	else
		own_context = 1;
	list = malloc(n ? n : 1);
	if (!list) {
		xattrs_free(&set);
		E4_FUSE->reply_err(req, ENOMEM);
		return;
	}
	len = 0;
	for (size_t i = 0; i < set.n; i++) {
		memcpy(list + len, set.v[i].name, strlen(set.v[i].name) + 1);
		len += strlen(set.v[i].name) + 1;
	}
	if (!own_context)
		memcpy(list + len, CONTEXT_XATTR, sizeof(CONTEXT_XATTR));
	xattrs_free(&set);
	reply_value(req, list, n, size);
	free(list);
}

/* Every operation that would change something: EROFS (the kernel
 * already refuses most on a read-only mount). */
static void rofs(fuse_req_t req)
{
	E4_FUSE->reply_err(req, EROFS);
}

static void op_setattr(fuse_req_t req, fuse_ino_t n, struct stat *a, int set,
		       struct fuse_file_info *fi)
{
	(void)n, (void)a, (void)set, (void)fi;
	rofs(req);
}

static void op_mknod(fuse_req_t req, fuse_ino_t p, const char *name, mode_t mode, dev_t rdev)
{
	(void)p, (void)name, (void)mode, (void)rdev;
	rofs(req);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t p, const char *name, mode_t mode)
{
	(void)p, (void)name, (void)mode;
	rofs(req);
}

static void op_unlink(fuse_req_t req, fuse_ino_t p, const char *name)
{
	(void)p, (void)name;
	rofs(req);
}

static void op_symlink(fuse_req_t req, const char *link, fuse_ino_t p, const char *name)
{
	(void)link, (void)p, (void)name;
	rofs(req);
}

static void op_rename(fuse_req_t req, fuse_ino_t p, const char *name, fuse_ino_t np,
		      const char *nname, unsigned int flags)
{
	(void)p, (void)name, (void)np, (void)nname, (void)flags;
	rofs(req);
}

static void op_link(fuse_req_t req, fuse_ino_t n, fuse_ino_t np, const char *nname)
{
	(void)n, (void)np, (void)nname;
	rofs(req);
}

static void op_write(fuse_req_t req, fuse_ino_t n, const char *buf, size_t size,
		     off_t off, struct fuse_file_info *fi)
{
	(void)n, (void)buf, (void)size, (void)off, (void)fi;
	rofs(req);
}

static void op_create(fuse_req_t req, fuse_ino_t p, const char *name, mode_t mode,
		      struct fuse_file_info *fi)
{
	(void)p, (void)name, (void)mode, (void)fi;
	rofs(req);
}

static void op_setxattr(fuse_req_t req, fuse_ino_t n, const char *name,
			const char *value, size_t size, int flags)
{
	(void)n, (void)name, (void)value, (void)size, (void)flags;
	rofs(req);
}

static void op_removexattr(fuse_req_t req, fuse_ino_t n, const char *name)
{
	(void)n, (void)name;
	rofs(req);
}

static void op_fallocate(fuse_req_t req, fuse_ino_t n, int mode, off_t off,
			 off_t len, struct fuse_file_info *fi)
{
	(void)n, (void)mode, (void)off, (void)len, (void)fi;
	rofs(req);
}

/* The POSIX ACLs: the kernel asks getxattr for system.posix_acl_* only
 * when the connection handles them (else it answers EOPNOTSUPP itself),
 * and then applies them in its permission checks (default_permissions),
 * as its own mount of the image does. */
static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	if (conn->capable & FUSE_CAP_POSIX_ACL)
		conn->want |= FUSE_CAP_POSIX_ACL;
}

/* The handlers that use the filesystem or the caches, each under the
 * mount's lock (read takes it itself, for less time). */
#define LOCKED(op, params, args) \
	static void op##_locked params \
	{ \
		struct mount *m = M(req); \
		pthread_mutex_lock(&m->lock); \
		op args; \
		pthread_mutex_unlock(&m->lock); \
	}
LOCKED(op_lookup, (fuse_req_t req, fuse_ino_t parent, const char *name), (req, parent, name))
LOCKED(op_getattr, (fuse_req_t req, fuse_ino_t node, struct fuse_file_info *fi), (req, node, fi))
LOCKED(op_readlink, (fuse_req_t req, fuse_ino_t node), (req, node))
LOCKED(op_opendir, (fuse_req_t req, fuse_ino_t node, struct fuse_file_info *fi), (req, node, fi))
LOCKED(op_readdir, (fuse_req_t req, fuse_ino_t node, size_t size, off_t off, struct fuse_file_info *fi), (req, node, size, off, fi))
LOCKED(op_open, (fuse_req_t req, fuse_ino_t node, struct fuse_file_info *fi), (req, node, fi))
LOCKED(op_release, (fuse_req_t req, fuse_ino_t node, struct fuse_file_info *fi), (req, node, fi))
LOCKED(op_statfs, (fuse_req_t req, fuse_ino_t node), (req, node))
LOCKED(op_getxattr, (fuse_req_t req, fuse_ino_t node, const char *name, size_t size), (req, node, name, size))
LOCKED(op_listxattr, (fuse_req_t req, fuse_ino_t node, size_t size), (req, node, size))

static const struct fuse_lowlevel_ops ops = {
	.init = op_init,
	.lookup = op_lookup_locked,
	.getattr = op_getattr_locked,
	.readlink = op_readlink_locked,
	.opendir = op_opendir_locked,
	.readdir = op_readdir_locked,
	.releasedir = op_releasedir,
	.open = op_open_locked,
	.read = op_read,
	.release = op_release_locked,
	.statfs = op_statfs_locked,
	.getxattr = op_getxattr_locked,
	.listxattr = op_listxattr_locked,
	.setattr = op_setattr,
	.mknod = op_mknod,
	.mkdir = op_mkdir,
	.unlink = op_unlink,
	.rmdir = op_unlink,
	.symlink = op_symlink,
	.rename = op_rename,
	.link = op_link,
	.write = op_write,
	.create = op_create,
	.setxattr = op_setxattr,
	.removexattr = op_removexattr,
	.fallocate = op_fallocate,
};

/* The walk that finds each directory's one name (parent_of). */
static enum e4_walk_action walk_entry(void *arg, const struct e4_walk_node *n)
{
	struct mount *m = arg;
	uint32_t other;

	if (n->entry && n->parent && n->inode && E4_ISDIR(n->inode->mode) &&
	    e4_blockset_claim(&m->parent_of, n->ino, n->parent->ino, &other) < 0)
		return E4_WALK_STOP;
	return E4_WALK_CONTINUE;
}

/* The library's messages: none about single entries during that walk
 * (ls -R shows them; the mount reports each when the kernel asks), but
 * what is said once per policy (which key opens it, or that none does)
 * is said then or never. */
static void mount_diag(void *arg, const struct e4_diag *d)
{
	struct mount *m = arg;

	if (!m->walking || d->problem == E4_P_NO_KEY || d->level == E4_DIAG_INFO) {
		pthread_mutex_lock(&m->rlock);
		report_diag(m->r, d);
		pthread_mutex_unlock(&m->rlock);
	}
}

static void mount_free(struct mount *m)
{
	e4_blockset_free(&m->parent_of);
	for (size_t i = 0; i < DIR_CACHE; i++)
		e4_dir_free(m->dirs[i].d);
	for (size_t i = 0; i < FILE_CACHE; i++)
		slot_close(&m->files[i]);
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->rlock);
	pthread_cond_destroy(&m->handle_free);
}

int cmd_mount(const struct options *o, struct report *r)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct fuse_session *se = NULL;
	struct session s;
	struct mount m;
	struct e4_fs_info fi;
	char fsname[64];
	char *mountpoint = NULL, why[512];
	int rc, ret = -1;

	/* libfuse3 is loaded for the mount only (dynlib.h) */
	if (e4_dl_need(E4_DL_FUSE, why, sizeof(why))) {
		report_error(r, "mount: %s", why);
		return json_finish(o->json, "mount", r, EXIT_FATAL);
	}
	if (access("/dev/fuse", R_OK | W_OK)) {
		report_error(r, "mount: /dev/fuse cannot be used: %s", strerror(errno));
		return json_finish(o->json, "mount", r, EXIT_FATAL);
	}
	for (size_t i = 0; i < o->n_mount_options; i++) {
		char *opts = strdup(o->mount_options[i]), *save = NULL;

		for (char *t = opts ? strtok_r(opts, ",", &save) : NULL; t;
		     t = strtok_r(NULL, ",", &save))
			if (!strcmp(t, "rw")) {
				report_error(r, "mount: -o rw: the mount is read-only");
				free(opts);
				return json_finish(o->json, "mount", r, EXIT_FATAL);
			}
		free(opts);
	}
	/* libfuse goes to "/" (fuse_daemonize, also in the foreground): a
	 * relative mountpoint would be unmounted from there, maybe another
	 * filesystem */
	mountpoint = realpath(o->args[1], NULL);
	if (!mountpoint) {
		report_error(r, "mount: %s: %s", o->args[1], strerror(errno));
		return json_finish(o->json, "mount", r, EXIT_FATAL);
	}
	memset(&m, 0, sizeof(m));
	pthread_mutex_init(&m.lock, NULL);
	pthread_mutex_init(&m.rlock, NULL);
	pthread_cond_init(&m.handle_free, NULL);
	m.r = r;
	rc = session_open_diag(&s, o, r, 1, mount_diag, &m);
	if (rc) {
		mount_free(&m);
		free(mountpoint);
		return json_finish(o->json, "mount", r, EXIT_FATAL);
	}
	m.s = &s;
	m.concurrent = e4_fs_concurrent_reads(s.fs);
	{
		/* every directory's one name, before the kernel asks: only
		 * directories' inodes are needed (the scan tells the others,
		 * without a cache of every table the listings' hash order
		 * would fill) */
		struct e4_walk_options wo = { .recursive = 1, .prescan = 1 };
		struct e4_walk_visitor v = { walk_entry, NULL, NULL, NULL };
		struct e4_walk_stats st;

		memset(&st, 0, sizeof(st));
		m.walking = 1;
		e4_walk(s.fs, E4_ROOT_INO, "/", &wo, &v, &m, &st);
		m.walking = 0;
		report_info(r, "mount: directories' names found before serving: %zu directories, "
			    "%zu entries, %zu of their inodes read", st.dirs, st.entries,
			    st.inodes_read);
	}
	m.keep_locked = o->keep_locked;
	e4_fs_get_info(s.fs, &fi);
	m.first_ino = fi.first_ino;
	e4_fs_get_info(s.fs, &fi);
	m.block_size = fi.block_size;
	snprintf(fsname, sizeof(fsname), "fsname=e4dump");
	if (E4_FUSE->opt_add_arg(&args, "e4dump") ||
	    E4_FUSE->opt_add_arg(&args, "-o") ||
	    E4_FUSE->opt_add_arg(&args, "ro,default_permissions,subtype=e4dump") ||
	    E4_FUSE->opt_add_arg(&args, "-o") || E4_FUSE->opt_add_arg(&args, fsname))
		goto out;
	for (size_t i = 0; i < o->n_mount_options; i++)
		if (E4_FUSE->opt_add_arg(&args, "-o") ||
		    E4_FUSE->opt_add_arg(&args, o->mount_options[i]))
			goto out;
	se = E4_FUSE->session_new(&args, &ops, sizeof(ops), &m);
	if (!se) {
		report_error(r, "mount: FUSE refused the options");
		goto out;
	}
	if (E4_FUSE->set_signal_handlers(se)) {
		report_error(r, "mount: cannot set signal handlers");
		goto out;
	}
	if (E4_FUSE->session_mount(se, mountpoint)) {
		report_error(r, "mount: cannot mount on %s", mountpoint);
		E4_FUSE->remove_signal_handlers(se);
		goto out;
	}
	if (o->json) {
		/* the start record, before the daemon's stdout is closed */
		json_object *j = json_record("mount");

		json_object_object_add(j, "image", json_name(s.image));
		json_object_object_add(j, "mountpoint", json_name(mountpoint));
		json_object_object_add(j, "foreground", json_object_new_boolean(o->foreground));
		json_object_object_add(j, "keep_locked", json_object_new_boolean(o->keep_locked));
		json_object_object_add(j, "locked_policies", json_object_new_uint64(r->locked));
		json_emit(j);
		fflush(stdout);
	}
	/* the image is open: only now go to the background; messages
	 * (damaged entries) still go to the stderr it was started with,
	 * which fuse_daemonize would send to /dev/null */
	{
		int err_fd = o->foreground ? -1 : dup(STDERR_FILENO);

		E4_FUSE->daemonize(o->foreground);
		if (err_fd >= 0) {
			dup2(err_fd, STDERR_FILENO);
			close(err_fd);
		}
	}
	/* a signal (Ctrl-C, SIGTERM) ends the loop with its number: the
	 * normal way out */
	{
		struct fuse_loop_config *cfg = E4_FUSE->loop_cfg_create();

		if (!cfg) {
			report_error(r, "mount: out of memory");
			ret = -1;
		} else {
			E4_FUSE->loop_cfg_set_max_threads(cfg, MOUNT_THREADS);
			ret = E4_FUSE->session_loop_mt(se, cfg);
			E4_FUSE->loop_cfg_destroy(cfg);
		}
	}
	if (ret > 0)
		ret = 0;
	E4_FUSE->session_unmount(se);
	E4_FUSE->remove_signal_handlers(se);
out:
	if (se)
		E4_FUSE->session_destroy(se);
	E4_FUSE->opt_free_args(&args);
	mount_free(&m);
	rc = ret == 0 ? session_status(&s) : EXIT_FATAL;
	session_close(&s);
	/* the summary on unmount: seen with -f (a daemon's stdout is closed,
	 * so that a pipe or $(...) reading the start record ends) */
	if (o->json) {
		json_object *j = json_summary("mount", r, rc);

		json_object_object_add(j, "mountpoint", json_name(mountpoint));
		json_emit(j);
	}
	free(mountpoint);
	return finish_stdout(rc, r);
}
