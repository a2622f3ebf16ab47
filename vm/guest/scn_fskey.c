/* e4dump QEMU guest, scenario commands: keys in the filesystem's keyring
 * (fskey-add, fskey-add-as, fskey-remove, fskey-status), open files across a
 * key removal (hold, read-held, release), dentries across a key addition
 * (remember, recheck). */
#include "guest.h"

/* ---- keys in the filesystem's keyring (fskey-*) ------------------------------
 * Slots 1..8 remember a key added with FS_IOC_ADD_ENCRYPTION_KEY (v1: by
 * descriptor, root only; v2: by identifier) so that later lines can add it
 * again (as another user too), remove it and ask its status. */
#define FSKEY_SLOTS 8
static struct fskey {
	int used;
	struct e4_fscrypt_key_specifier spec;
	uint8_t raw[64];
	uint32_t size;
} g_fskey[FSKEY_SLOTS + 1];

static struct fskey *fskey_slot(const char *s, int lineno)
{
	unsigned long n = parse_num(s, FSKEY_SLOTS, lineno);

	if (n < 1)
		fail("line %d: key slot must be 1..%d", lineno, FSKEY_SLOTS);
	return &g_fskey[n];
}

/* 0 or errno; a v2 key's identifier is filled in */
static int fskey_add(struct fskey *k)
{
	struct {
		struct e4_fscrypt_add_key_arg a;
		uint8_t raw[64];
	} arg;
	int fd, e = 0;

	memset(&arg, 0, sizeof(arg));
	arg.a.key_spec = k->spec;
	arg.a.raw_size = k->size;
	memcpy(arg.raw, k->raw, k->size);
	fd = open(MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("open " MNT);
	if (ioctl(fd, E4_IOC_ADD_ENCRYPTION_KEY, &arg) < 0)
		e = errno;
	close(fd);
	if (!e)
		k->spec = arg.a.key_spec;
	memset(&arg, 0, sizeof(arg));
	return e;
}

static void man_spec(const struct fskey *k)
{
	man_hex(k->spec.u.identifier,
		k->spec.type == E4_FSCRYPT_KEY_SPEC_TYPE_DESCRIPTOR ? 8 : 16);
}

/* fskey-add N v1 DESCHEX KEYHEX | fskey-add N v2 KEYHEX [again]: add a key
 * to the filesystem's keyring (root).  "again" re-adds slot N.  Records
 * "fskey-add N ERRNO SPECHEX". */
void cmd_fskey_add(char **tok, int ntok, int lineno)
{
	struct fskey *k;
	int e;

	if (ntok < 3)
		goto usage;
	k = fskey_slot(tok[1], lineno);
	if (!strcmp(tok[2], "again")) {
		if (ntok != 3 || !k->used)
			goto usage;
	} else if (!strcmp(tok[2], "v1") && ntok == 5) {
		memset(k, 0, sizeof(*k));
		k->spec.type = E4_FSCRYPT_KEY_SPEC_TYPE_DESCRIPTOR;
		if (parse_hex(tok[3], k->spec.u.descriptor, 8, lineno) != 8)
			fail("line %d: descriptor must be 8 bytes", lineno);
		k->size = (uint32_t)parse_hex(tok[4], k->raw, sizeof(k->raw), lineno);
	} else if (!strcmp(tok[2], "v2") && ntok == 4) {
		memset(k, 0, sizeof(*k));
		k->spec.type = E4_FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
		k->size = (uint32_t)parse_hex(tok[3], k->raw, sizeof(k->raw), lineno);
	} else {
		goto usage;
	}
	k->used = 1;
	e = fskey_add(k);
	if (!e && k->spec.type == E4_FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER) {
		memcpy(g_last_id2, k->spec.u.identifier, 16);
		g_have_id2 = 1;
	}
	man_add("fskey-add %s %d ", tok[1], e);
	man_spec(k);
	man_add("\n");
	say("e4dump-guest: key slot %s added: %s", tok[1], e ? strerror(e) : "ok");
	return;
usage:
	fail("line %d: usage: fskey-add N v1 DESCHEX KEYHEX | N v2 KEYHEX | N again", lineno);
}

/* fskey-add-as N UID: add slot N's key again as user UID (a child process
 * with all its ids set to UID).  Records "fskey-add-as N UID ERRNO". */
void cmd_fskey_add_as(char **tok, int ntok, int lineno)
{
	struct fskey *k;
	unsigned long uid;
	int status;
	pid_t pid;

	if (ntok != 3)
		fail("line %d: usage: fskey-add-as N UID", lineno);
	k = fskey_slot(tok[1], lineno);
	uid = parse_num(tok[2], 65534, lineno);
	if (!k->used)
		fail("line %d: key slot %s is empty", lineno, tok[1]);
	pid = fork();
	if (pid < 0)
		FAILE("fork");
	if (pid == 0) {
		if (setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) < 0 ||
		    setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) < 0)
			_exit(255);
		_exit(fskey_add(k));
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) == 255)
		fail("line %d: fskey-add-as: the child failed", lineno);
	man_add("fskey-add-as %s %lu %d\n", tok[1], uid, WEXITSTATUS(status));
}

/* fskey-remove TAG N [all]: FS_IOC_REMOVE_ENCRYPTION_KEY (_ALL_USERS).
 * Records "fskey-remove TAG ERRNO STATUSFLAGS". */
void cmd_fskey_remove(char **tok, int ntok, int lineno)
{
	struct e4_fscrypt_remove_key_arg a;
	struct fskey *k;
	int fd, e = 0, all = ntok == 4 && !strcmp(tok[3], "all");

	if (ntok != 3 && !all)
		fail("line %d: usage: fskey-remove TAG N [all]", lineno);
	parse_tag(tok[1], lineno);
	k = fskey_slot(tok[2], lineno);
	memset(&a, 0, sizeof(a));
	a.key_spec = k->spec;
	fd = open(MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("open " MNT);
	if (ioctl(fd, all ? E4_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS : E4_IOC_REMOVE_ENCRYPTION_KEY,
		  &a) < 0)
		e = errno;
	close(fd);
	man_add("fskey-remove %s %d %u\n", tok[1], e, a.removal_status_flags);
}

/* fskey-status TAG N: FS_IOC_GET_ENCRYPTION_KEY_STATUS.
 * Records "fskey-status TAG ERRNO STATUS FLAGS USERS". */
void cmd_fskey_status(char **tok, int ntok, int lineno)
{
	struct e4_fscrypt_get_key_status_arg a;
	int fd, e = 0;

	if (ntok != 3)
		fail("line %d: usage: fskey-status TAG N", lineno);
	parse_tag(tok[1], lineno);
	memset(&a, 0, sizeof(a));
	a.key_spec = fskey_slot(tok[2], lineno)->spec;
	fd = open(MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("open " MNT);
	if (ioctl(fd, E4_IOC_GET_ENCRYPTION_KEY_STATUS, &a) < 0)
		e = errno;
	close(fd);
	man_add("fskey-status %s %d %u %u %u\n", tok[1], e, a.status, a.status_flags,
		a.user_count);
}

/* ---- open files across a key removal; dentries across a key addition -------- */
#define HELD_MAX 8
static struct held {
	char tag[65];
	int fd;
} g_held[HELD_MAX];

static struct held *held_find(const char *tag, int create, int lineno)
{
	int i;

	for (i = 0; i < HELD_MAX; i++)
		if (g_held[i].tag[0] && !strcmp(g_held[i].tag, tag))
			return &g_held[i];
	if (create)
		for (i = 0; i < HELD_MAX; i++)
			if (!g_held[i].tag[0]) {
				snprintf(g_held[i].tag, sizeof(g_held[i].tag), "%s", tag);
				return &g_held[i];
			}
	fail("line %d: %s: %s", lineno, tag, create ? "too many held files" : "not held");
}

/* FNV-1a-64 of the first 64 KiB of fd, or errno as a negative number */
static int64_t held_digest(int fd, uint64_t *h)
{
	static unsigned char buf[65536];
	ssize_t n = pread(fd, buf, sizeof(buf), 0);

	if (n < 0)
		return -errno;
	*h = 0xcbf29ce484222325ull;
	for (ssize_t i = 0; i < n; i++)
		*h = (*h ^ buf[i]) * 0x100000001b3ull;
	return n;
}

static void held_record(const char *what, const char *tag, int fd)
{
	uint64_t h = 0;
	int64_t n = held_digest(fd, &h);

	man_add("%s %s %d %" PRId64 " %016" PRIx64 "\n", what, tag, n < 0 ? (int)-n : 0,
		n < 0 ? 0 : n, h);
}

/* hold TAG PATH: open /mnt/PATH and keep it open; records "held TAG ERRNO
 * NBYTES FNV" of what it reads now.  read-held TAG: read it again,
 * "read-held TAG ERRNO NBYTES FNV".  release TAG: close it. */
void cmd_hold(char **tok, int ntok, int lineno)
{
	struct held *h;
	char p[4200];

	if (ntok != 3)
		fail("line %d: usage: hold TAG PATH", lineno);
	h = held_find(parse_tag(tok[1], lineno), 1, lineno);
	abs_path(p, sizeof(p), parse_relpath(tok[2], lineno));
	h->fd = open(p, O_RDONLY | O_CLOEXEC);
	if (h->fd < 0)
		FAILE("line %d: open %s", lineno, p);
	held_record("held", tok[1], h->fd);
}

void cmd_read_held(char **tok, int ntok, int lineno)
{
	if (ntok != 2)
		fail("line %d: usage: read-held TAG", lineno);
	held_record("read-held", tok[1], held_find(tok[1], 0, lineno)->fd);
}

void cmd_release(char **tok, int ntok, int lineno)
{
	struct held *h;

	if (ntok != 2)
		fail("line %d: usage: release TAG", lineno);
	h = held_find(tok[1], 0, lineno);
	close(h->fd);
	h->tag[0] = 0;
}

/* remember TAG DIR: readdir /mnt/DIR, take its first regular file's name
 * (a no-key name when the key is absent) and lstat it, creating its dentry;
 * records "remember TAG INO ERRNO".  recheck TAG (after the key is added):
 * lstat that name again (records "recheck TAG nokey ERRNO": a no-key dentry
 * must not survive the key), then find the same inode in a new readdir and
 * lstat it by the name now listed ("recheck TAG plain ERRNO SAMENAME": 1
 * if the listed name is still the old one). */
static struct remembered {
	char tag[65], dir[4096], name[256];
	uint64_t ino;
} g_remembered[HELD_MAX];

void cmd_remember(char **tok, int ntok, int lineno)
{
	struct remembered *r = NULL;
	char rel[4096], sub[4096], p[4200];
	struct dent *v;
	struct stat st;
	size_t n, i;
	int e = 0;

	if (ntok != 3)
		fail("line %d: usage: remember TAG DIR", lineno);
	parse_tag(tok[1], lineno);
	for (i = 0; i < HELD_MAX && !r; i++)
		if (!g_remembered[i].tag[0])
			r = &g_remembered[i];
	if (!r)
		fail("line %d: too many remember lines", lineno);
	resolve(parse_relpath(tok[2], lineno), rel, sizeof(rel), lineno);
	v = list_dir(rel, &n);
	i = first_regular(v, n, "remember", rel, lineno);
	snprintf(r->tag, sizeof(r->tag), "%s", tok[1]);
	snprintf(r->dir, sizeof(r->dir), "%s", rel);
	snprintf(r->name, sizeof(r->name), "%s", v[i].name);
	join(sub, sizeof(sub), rel, v[i].name);
	abs_path(p, sizeof(p), sub);
	if (lstat(p, &st) < 0)
		e = errno;
	r->ino = e ? 0 : st.st_ino;
	free_list(v, n);
	man_add("remember %s %llu %d\n", r->tag, (unsigned long long)r->ino, e);
}

void cmd_recheck(char **tok, int ntok, int lineno)
{
	struct remembered *r = NULL;
	char sub[4096], p[4200];
	struct dent *v;
	struct stat st;
	size_t n, i;
	int e = 0;

	if (ntok != 2)
		fail("line %d: usage: recheck TAG", lineno);
	for (i = 0; i < HELD_MAX && !r; i++)
		if (!strcmp(g_remembered[i].tag, tok[1]))
			r = &g_remembered[i];
	if (!r)
		fail("line %d: recheck %s: nothing remembered", lineno, tok[1]);
	join(sub, sizeof(sub), r->dir, r->name);
	abs_path(p, sizeof(p), sub);
	if (lstat(p, &st) < 0)
		e = errno;
	man_add("recheck %s nokey %d 0\n", r->tag, e);
	v = list_dir(r->dir, &n);
	for (i = 0; i < n && v[i].ino != r->ino; i++)
		;
	if (i == n) {
		man_add("recheck %s plain %d 0\n", r->tag, ENOENT);
	} else {
		join(sub, sizeof(sub), r->dir, v[i].name);
		abs_path(p, sizeof(p), sub);
		e = lstat(p, &st) < 0 ? errno : st.st_ino != r->ino ? ESTALE : 0;
		man_add("recheck %s plain %d %d\n", r->tag, e, !strcmp(v[i].name, r->name));
	}
	free_list(v, n);
}
