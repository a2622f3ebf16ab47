/* e4dump QEMU guest, scenario commands: mounts and the kernel's answers to
 * them (remount, forget-keys, mount-try with the kernel's log; the 2015
 * format and FIPS probes), and proc. */
#include "guest.h"

void cmd_remount(char **tok, int ntok, int lineno)
{
	if (ntok > 2)
		fail("line %d: usage: remount [OPTS]", lineno);
	if (ntok == 2 && strlen(tok[1]) >= sizeof(g_mountopts))
		fail("line %d: mount options too long", lineno);
	snprintf(g_mountopts, sizeof(g_mountopts), "%s", ntok == 2 ? tok[1] : "");
	remount_img(lineno);
	say("e4dump-guest: remounted with options '%s'", g_mountopts);
	man_add("remount %s\n", g_mountopts[0] ? g_mountopts : "-");
}

/* forget-keys [keep-mount]: without keep-mount, a new session keyring and a
 * remount.  With keep-mount the image stays mounted (a mount starts writing
 * the journal at its first block again, which would overwrite what the
 * undelete scenarios need): a new session keyring, every key2 key removed
 * from the filesystem's keyring (FS_IOC_REMOVE_ENCRYPTION_KEY syncs and
 * evicts its inodes), then syncfs and drop_caches evict the v1 inodes. */
void cmd_forget_keys(char **tok, int ntok, int lineno)
{
	int keep = ntok == 2 && !strcmp(tok[1], "keep-mount");

	if (ntok != 1 && !keep)
		fail("line %d: usage: forget-keys [keep-mount]", lineno);
	if (syscall(SYS_keyctl, E4_KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
		FAILE("line %d: keyctl(JOIN_SESSION_KEYRING)", lineno);
	if (!keep) {
		remount_img(lineno); /* evicts the inodes and their cached keys */
		say("e4dump-guest: keys forgotten (new session keyring, remounted)");
		man_add("forget-keys\n");
		return;
	}
	for (int i = 0; i < g_nkey2_ids; i++) {
		struct e4_fscrypt_remove_key_arg a;
		int fd = open(MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0)
			FAILE("open " MNT);
		memset(&a, 0, sizeof(a));
		a.key_spec.type = E4_FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
		memcpy(a.key_spec.u.identifier, g_key2_ids[i], 16);
		if (ioctl(fd, E4_IOC_REMOVE_ENCRYPTION_KEY, &a) < 0 && errno != ENOKEY)
			FAILE("line %d: FS_IOC_REMOVE_ENCRYPTION_KEY", lineno);
		close(fd);
		if (a.removal_status_flags)
			fail("line %d: forget-keys keep-mount: a v2 key is still in use (flags 0x%x)",
			     lineno, a.removal_status_flags);
	}
	g_nkey2_ids = 0;
	drop_caches();
	say("e4dump-guest: keys forgotten (new session keyring, v2 keys removed, caches dropped)");
	man_add("forget-keys\n");
}

/* ---- the kernel's log, for the messages of a refused mount ---------------------- */

static int g_kmsg = -1;

/* Skip what the kernel logged so far. */
static void kmsg_mark(void)
{
	if (g_kmsg < 0)
		g_kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (g_kmsg < 0)
		FAILE("open /dev/kmsg");
	if (lseek(g_kmsg, 0, SEEK_END) < 0)
		FAILE("lseek /dev/kmsg");
}

/* Record each ext4 or fscrypt message logged since kmsg_mark() as
 * "kmsg TAG HEXTEXT" (the text after the record's ';'). */
static void kmsg_record(const char *tag)
{
	char rec[2048];
	ssize_t n;

	for (;;) {
		const char *text;
		size_t i;

		n = read(g_kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue; /* overwritten records: go on with the next */
		if (n <= 0)
			break;
		rec[n] = '\0';
		text = strchr(rec, ';');
		if (!text)
			continue;
		text++;
		if (strncmp(text, "EXT4-fs", 7) && strncmp(text, "fscrypt", 7))
			continue;
		man_add("kmsg %s ", tag);
		for (i = 0; text[i] && text[i] != '\n'; i++)
			man_add("%02x", (unsigned char)text[i]);
		man_add("\n");
		say("e4dump-guest: kernel: %.*s", (int)strcspn(text, "\n"), text);
	}
}

/* mount-try TAG OPTS|-: try a mount with OPTS ("ro" among them means
 * MS_RDONLY), record "mount-try TAG OPTS ERRNO" (0: it mounted) and the
 * kernel's messages, unmount, then mount again as before (unless "@nomount"
 * left the image unmounted). */
void cmd_mount_try(char **tok, int ntok, int lineno)
{
	char data[1024], opts[1024], *save = NULL, *o;
	unsigned long flags = 0;
	const char *tag;
	int e = 0, was_mounted = g_mounted;

	if (ntok != 3 || strlen(tok[2]) >= sizeof(opts))
		fail("line %d: usage: mount-try TAG OPTS|-", lineno);
	tag = parse_tag(tok[1], lineno);
	snprintf(opts, sizeof(opts), "%s", strcmp(tok[2], "-") ? tok[2] : "");
	data[0] = '\0';
	for (o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (!strcmp(o, "ro")) {
			flags |= MS_RDONLY;
			continue;
		}
		snprintf(data + strlen(data), sizeof(data) - strlen(data), "%s%s",
			 data[0] ? "," : "", o);
	}
	umount_img(lineno);
	kmsg_mark();
	if (mount("/dev/vda", MNT, "ext4", flags, data[0] ? data : NULL) < 0)
		e = errno;
	else if (umount2(MNT, 0) < 0)
		FAILE("line %d: umount " MNT, lineno);
	kmsg_record(tag);
	man_add("mount-try %s %s %d\n", tag, tok[2], e);
	say("e4dump-guest: mount with '%s': %s", tok[2], e ? strerror(e) : "mounted");
	if (was_mounted)
		remount_img(lineno);
}

/* proc TAG PATH: the first word of /proc/PATH (e.g. sys/crypto/fips_enabled);
 * records "proc TAG WORD", "-" when it cannot be read. */
void cmd_proc(char **tok, int ntok, int lineno)
{
	char p[300], w[64] = "-";
	const char *c;
	FILE *f;

	if (ntok != 3 || strlen(tok[2]) > 200)
		fail("line %d: usage: proc TAG PATH", lineno);
	for (c = tok[2]; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("/_-.", *c))
			fail("line %d: bad /proc path %s", lineno, tok[2]);
	snprintf(p, sizeof(p), "/proc/%s", tok[2]);
	f = fopen(p, "re");
	if (f) {
		if (fscanf(f, "%63s", w) != 1)
			snprintf(w, sizeof(w), "-");
		fclose(f);
	}
	man_add("proc %s %s\n", parse_tag(tok[1], lineno), w);
}
