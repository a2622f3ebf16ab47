/* e4dump QEMU guest, scenario commands for RAM captures (issue 30): a v1
 * logon key taken out of the session keyring after its files were read
 * (key-unlink, key-revoke), every file of a tree read and every directory
 * listed (read-all), the caches dropped (drop-caches), and the capture step
 * (capture): the manifest is written, the image synced and remounted
 * read-only with every key still added, a marker printed, and the guest
 * waits for the host to save its RAM through the QEMU monitor and quit. */
#include "guest.h"

int g_capture; /* 1: the scenario ended with `capture` */

/* the serial number of the logon key "PREFIX:DESCHEX" in the session keyring */
static long find_logon(const char *prefix, const char *deschex, char *desc, size_t n,
		       int lineno)
{
	unsigned char d[8];
	long id;

	if (parse_hex(deschex, d, sizeof(d), lineno) != 8)
		fail("line %d: descriptor must be 8 bytes (16 hex digits)", lineno);
	if (strlen(prefix) > 20)
		fail("line %d: prefix too long", lineno);
	snprintf(desc, n, "%s:%s", prefix, deschex);
	for (char *c = desc; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	id = syscall(SYS_keyctl, E4_KEYCTL_SEARCH, E4_KEY_SPEC_SESSION_KEYRING, "logon", desc, 0);
	if (id < 0)
		FAILE("line %d: keyctl(SEARCH, logon %s)", lineno, desc);
	return id;
}

/* key-unlink PREFIX DESCHEX / key-revoke PREFIX DESCHEX: KEYCTL_UNLINK the
 * logon key from the session keyring (its last link: the key's usage drops
 * to 0 and the key garbage collector destroys it, user_destroy:
 * kfree_sensitive of the payload) or KEYCTL_REVOKE it (user_revoke: the
 * payload freed after an RCU grace period with kfree_sensitive).  The
 * inodes whose keys were set up from it keep them.  Then a short wait, so
 * that the garbage collector's work item and the RCU callback have run
 * before anything later (a capture) looks.  Records "key-unlink DESC" /
 * "key-revoke DESC" (DESC = prefix:deschex). */
static void key_forget(char **tok, int ntok, int lineno, int revoke)
{
	char desc[64];
	long id;

	if (ntok != 3)
		fail("line %d: usage: %s PREFIX DESCHEX", lineno, tok[0]);
	id = find_logon(tok[1], tok[2], desc, sizeof(desc), lineno);
	if (revoke) {
		if (syscall(SYS_keyctl, E4_KEYCTL_REVOKE, id) < 0)
			FAILE("line %d: keyctl(REVOKE, %s)", lineno, desc);
	}
	if (syscall(SYS_keyctl, E4_KEYCTL_UNLINK, id, E4_KEY_SPEC_SESSION_KEYRING) < 0)
		FAILE("line %d: keyctl(UNLINK, %s)", lineno, desc);
	/* gone from the keyring: a search now fails with ENOKEY */
	if (syscall(SYS_keyctl, E4_KEYCTL_SEARCH, E4_KEY_SPEC_SESSION_KEYRING, "logon", desc,
		    0) >= 0 || errno != ENOKEY)
		fail("line %d: %s: logon key %s still found", lineno, tok[0], desc);
	usleep(500000);
	say("e4dump-guest: logon key %s %s", desc, revoke ? "revoked and unlinked" : "unlinked");
	man_add("%s %s\n", tok[0], desc);
}

void cmd_key_unlink(char **tok, int ntok, int lineno)
{
	key_forget(tok, ntok, lineno, 0);
}

void cmd_key_revoke(char **tok, int ntok, int lineno)
{
	key_forget(tok, ntok, lineno, 1);
}

/* drop-caches: syncfs, then drop_caches 3: every unused inode is evicted
 * with its key (the next access sets its key up again from the keyrings).
 * Records "drop-caches". */
void cmd_drop_caches(char **tok, int ntok, int lineno)
{
	(void)tok;
	if (ntok != 1)
		fail("line %d: usage: drop-caches", lineno);
	drop_caches();
	man_add("drop-caches\n");
}

static void read_tree(const char *rel, unsigned long *files, unsigned long *dirs,
		      unsigned long *links, unsigned long long *bytes)
{
	struct dent *v;
	size_t n, i;

	v = list_dir(rel, &n);
	(*dirs)++;
	for (i = 0; i < n; i++) {
		char sub[4200], p[4200];

		join(sub, sizeof(sub), rel, v[i].name);
		abs_path(p, sizeof(p), sub);
		if (v[i].type == DT_DIR) {
			read_tree(sub, files, dirs, links, bytes);
		} else if (v[i].type == DT_REG) {
			static unsigned char buf[65536];
			int fd = open(p, O_RDONLY | O_CLOEXEC);
			ssize_t r;

			if (fd < 0)
				FAILE("open %s", p);
			while ((r = read(fd, buf, sizeof(buf))) > 0)
				*bytes += (unsigned long long)r;
			if (r < 0)
				FAILE("read %s", p);
			close(fd);
			(*files)++;
		} else if (v[i].type == DT_LNK) {
			char t[4200];

			if (readlink(p, t, sizeof(t)) < 0)
				FAILE("readlink %s", p);
			(*links)++;
		}
	}
	free_list(v, n);
}

/* read-all TAG DIR: list /mnt/DIR recursively and read every regular file
 * to its end and every symlink's target, so that each inode's key is set up
 * (with the key present).  Records "read-all TAG DIRHEX FILES DIRS LINKS BYTES". */
void cmd_read_all(char **tok, int ntok, int lineno)
{
	unsigned long files = 0, dirs = 0, links = 0;
	unsigned long long bytes = 0;
	const char *tag, *dir;

	if (ntok != 3)
		fail("line %d: usage: read-all TAG DIR", lineno);
	tag = parse_tag(tok[1], lineno);
	dir = parse_relpath(tok[2], lineno);
	read_tree(dir, &files, &dirs, &links, &bytes);
	man_add("read-all %s ", tag);
	man_hex(dir, strlen(dir));
	man_add(" %lu %lu %lu %llu\n", files, dirs, links, bytes);
	say("e4dump-guest: read-all %s: %lu files, %lu directories, %lu symlinks, %llu bytes",
	    dir, files, dirs, links, bytes);
}

/* capture: the last line of a scenario.  main() writes the manifest, then
 * calls capture_wait(). */
void cmd_capture(char **tok, int ntok, int lineno)
{
	(void)tok;
	if (ntok != 1)
		fail("line %d: usage: capture", lineno);
	g_capture = lineno;
	man_add("capture\n");
}

/* After the manifest is on /dev/vdb: remount the image read-only (it is
 * synced and its journal emptied, so the image file is clean, and the
 * superblock with its keyring, the inodes and their keys stay), sync, print
 * the verdict and the marker, then wait for the host to save the RAM and
 * quit QEMU.  No power-off. */
void capture_wait(void)
{
	if (g_mounted && mount("/dev/vda", MNT, "ext4", MS_REMOUNT | MS_RDONLY,
			       g_mountopts[0] ? g_mountopts : NULL) < 0)
		FAILE("remount " MNT " read-only");
	umount_extra();
	sync();
	say("e4dump-guest: %zu entries, manifest %zu bytes", g_nent, g_man_len);
	say("E4DUMP-GUEST-OK");
	say("E4DUMP-GUEST-CAPTURE-READY");
	for (;;)
		pause();
}
