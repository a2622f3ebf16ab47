/* e4dump QEMU guest, scenario commands: keys (key, key2) and trees (tree:
 * v1 policies, tree2: v2 policies and casefold, plain, dummy-tree), and
 * entries added to an existing tree later (mkdir, bigdir-names, files). */
#include "guest.h"

void cmd_key(char **tok, int ntok, int lineno)
{
	struct e4_fscrypt_key k;
	unsigned char desc[8];
	char description[64];
	long id;

	if (ntok != 4)
		fail("line %d: usage: key PREFIX DESCHEX KEYHEX", lineno);
	if (parse_hex(tok[2], desc, sizeof(desc), lineno) != 8)
		fail("line %d: descriptor must be 8 bytes (16 hex digits)", lineno);
	if (strlen(tok[1]) > 20)
		fail("line %d: prefix too long", lineno);
	memset(&k, 0, sizeof(k));
	k.mode = 0;
	k.size = (uint32_t)parse_hex(tok[3], k.raw, sizeof(k.raw), lineno);
	snprintf(description, sizeof(description), "%s:%s", tok[1], tok[2]);
	for (char *c = description; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	id = syscall(SYS_add_key, "logon", description, &k, sizeof(k),
		     E4_KEY_SPEC_SESSION_KEYRING);
	if (id < 0)
		FAILE("line %d: add_key logon %s", lineno, description);
	say("e4dump-guest: key %s (%u bytes) = %ld", description, k.size, id);
	man_add("key %s %u\n", description, k.size);
	/* no copy of the raw key in init's memory: a RAM capture (capture.scn)
	 * must find it only where the kernel keeps it */
	explicit_bzero(&k, sizeof(k));
}

void cmd_key2(char **tok, int ntok, int lineno)
{
	struct {
		struct e4_fscrypt_add_key_arg a;
		uint8_t raw[64];
	} k;
	int fd;

	_Static_assert(offsetof(__typeof__(k), raw) == sizeof(struct e4_fscrypt_add_key_arg),
		       "raw[] right after the header");
	if (ntok != 2)
		fail("line %d: usage: key2 KEYHEX", lineno);
	memset(&k, 0, sizeof(k));
	k.a.key_spec.type = E4_FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	k.a.raw_size = (uint32_t)parse_hex(tok[1], k.raw, sizeof(k.raw), lineno);
	if (k.a.raw_size < 16)
		fail("line %d: a v2 master key has 16..64 bytes", lineno);
	k.a.key_id = 0;
	fd = open(MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("open " MNT);
	if (ioctl(fd, E4_IOC_ADD_ENCRYPTION_KEY, &k) < 0)
		FAILE("line %d: FS_IOC_ADD_ENCRYPTION_KEY on " MNT, lineno);
	close(fd);
	memcpy(g_last_id2, k.a.key_spec.u.identifier, 16);
	g_have_id2 = 1;
	if (g_nkey2_ids < KEY2_MAX)
		memcpy(g_key2_ids[g_nkey2_ids++], g_last_id2, 16);
	man_add("key2 ");
	man_hex(g_last_id2, 16);
	man_add(" %u\n", k.a.raw_size);
	say("e4dump-guest: key2 (%u bytes) added, identifier %02x%02x%02x%02x...", k.a.raw_size,
	    g_last_id2[0], g_last_id2[1], g_last_id2[2], g_last_id2[3]);
	explicit_bzero(&k, sizeof(k)); /* as in cmd_key */
}

void cmd_tree(char **tok, int ntok, int lineno)
{
	struct e4_fscrypt_policy_v1 pol, got;
	const char *dir;
	char p[4200];
	size_t first = g_nent;
	int fd;

	if (ntok < 6)
		fail("line %d: usage: tree DIR DESCHEX CONTENTS_MODE FNAMES_MODE FLAGS [big] [small]", lineno);
	dir = parse_dir(tok[1], lineno);
	memset(&pol, 0, sizeof(pol));
	pol.version = 0;
	if (parse_hex(tok[2], pol.master_key_descriptor, 8, lineno) != 8)
		fail("line %d: descriptor must be 8 bytes", lineno);
	pol.contents_encryption_mode = (uint8_t)parse_num(tok[3], 255, lineno);
	pol.filenames_encryption_mode = (uint8_t)parse_num(tok[4], 255, lineno);
	pol.flags = (uint8_t)parse_num(tok[5], 255, lineno);

	start_tree(dir);
	mk_dir(NULL, 0755);
	abs_path(p, sizeof(p), dir);
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("open %s", p);
	if (ioctl(fd, E4_IOC_SET_ENCRYPTION_POLICY, &pol) < 0)
		FAILE("line %d: FS_IOC_SET_ENCRYPTION_POLICY on %s", lineno, p);
	memset(&got, 0xff, sizeof(got));
	if (ioctl(fd, E4_IOC_GET_ENCRYPTION_POLICY, &got) < 0)
		FAILE("line %d: FS_IOC_GET_ENCRYPTION_POLICY on %s", lineno, p);
	if (memcmp(&got, &pol, sizeof(pol)))
		fail("line %d: policy read back from %s differs", lineno, p);
	if (close(fd) < 0)
		FAILE("close %s", p);

	man_add("tree %s enc %s %u %u %u", dir, tok[2], pol.contents_encryption_mode,
		pol.filenames_encryption_mode, pol.flags);
	for (int i = 6; i < ntok; i++)
		man_add(" %s", tok[i]);
	man_add("\n");
	populate(tok + 6, ntok - 6, lineno);
	finish_tree(first);
}

/* tree2 DIR CMODE FMODE FLAGS [IDHEX|@last] [casefold] [big] [small] */
void cmd_tree2(char **tok, int ntok, int lineno)
{
	struct e4_fscrypt_policy_v2 pol;
	struct e4_get_policy_ex_arg got;
	const char *dir;
	char p[4200];
	size_t first = g_nent;
	int fd, nopt = 5;

	if (ntok < 5)
		fail("line %d: usage: tree2 DIR CONTENTS_MODE FNAMES_MODE FLAGS [IDHEX|@last] [casefold] [big] [small]",
		     lineno);
	dir = parse_dir(tok[1], lineno);
	memset(&pol, 0, sizeof(pol));
	pol.version = E4_FSCRYPT_POLICY_V2;
	pol.contents_encryption_mode = (uint8_t)parse_num(tok[2], 255, lineno);
	pol.filenames_encryption_mode = (uint8_t)parse_num(tok[3], 255, lineno);
	pol.flags = (uint8_t)parse_num(tok[4], 255, lineno);
	if (ntok > 5 && is_hex32(tok[5])) {
		parse_hex(tok[5], pol.master_key_identifier, 16, lineno);
		nopt = 6;
	} else {
		if (ntok > 5 && !strcmp(tok[5], "@last"))
			nopt = 6;
		if (!g_have_id2)
			fail("line %d: tree2 without IDHEX needs a key2 line before", lineno);
		memcpy(pol.master_key_identifier, g_last_id2, 16);
	}

	start_tree(dir);
	mk_dir(NULL, 0755);
	abs_path(p, sizeof(p), dir);
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("open %s", p);
	for (int i = nopt; i < ntok; i++)
		if (!strcmp(tok[i], "casefold"))
			set_casefold(fd, p, lineno);
	if (ioctl(fd, E4_IOC_SET_ENCRYPTION_POLICY, &pol) < 0)
		FAILE("line %d: FS_IOC_SET_ENCRYPTION_POLICY (v2) on %s", lineno, p);
	errno = get_policy_fd(fd, &got);
	if (errno)
		FAILE("line %d: FS_IOC_GET_ENCRYPTION_POLICY_EX on %s", lineno, p);
	if (got.policy_size != sizeof(pol) || memcmp(got.policy, &pol, sizeof(pol)))
		fail("line %d: v2 policy read back from %s differs", lineno, p);
	if (close(fd) < 0)
		FAILE("close %s", p);

	man_add("tree %s enc2 ", dir);
	man_hex(pol.master_key_identifier, 16);
	man_add(" %u %u %u", pol.contents_encryption_mode, pol.filenames_encryption_mode,
		pol.flags);
	for (int i = nopt; i < ntok; i++)
		man_add(" %s", tok[i]);
	man_add("\n");
	g_casefold_opt = 1;
	populate(tok + nopt, ntok - nopt, lineno);
	g_casefold_opt = 0;
	finish_tree(first);
}

void cmd_plain(char **tok, int ntok, int lineno)
{
	const char *dir;
	size_t first = g_nent;

	if (ntok < 2)
		fail("line %d: usage: plain DIR [big] [small]", lineno);
	dir = parse_dir(tok[1], lineno);
	start_tree(dir);
	mk_dir(NULL, 0755);
	man_add("tree %s plain", dir);
	for (int i = 2; i < ntok; i++)
		man_add(" %s", tok[i]);
	man_add("\n");
	populate(tok + 2, ntok - 2, lineno);
	finish_tree(first);
}

void cmd_dummy_tree(char **tok, int ntok, int lineno)
{
	struct e4_get_policy_ex_arg a;
	const char *dir;
	size_t first = g_nent;
	int e;

	if (ntok < 2)
		fail("line %d: usage: dummy-tree DIR [small] [big]", lineno);
	dir = parse_dir(tok[1], lineno);
	start_tree(dir);
	mk_dir(NULL, 0755);
	e = get_policy(dir, 1, &a);
	if (e)
		fail_errno(e, "line %d: %s/%s has no encryption policy (mount with "
			   "test_dummy_encryption first)", lineno, MNT, dir);
	man_add("tree %s dummy", dir);
	for (int i = 2; i < ntok; i++)
		man_add(" %s", tok[i]);
	man_add("\ndummy-policy %s ", dir);
	man_hex(a.policy, a.policy_size);
	man_add("\n");
	populate(tok + 2, ntok - 2, lineno);
	finish_tree(first);
}

void cmd_mkdir(char **tok, int ntok, int lineno)
{
	const char *sub;
	size_t first;

	if (ntok != 2)
		fail("line %d: usage: mkdir TREE/DIR", lineno);
	first = late_begin(parse_relpath(tok[1], lineno), &sub, lineno);
	mk_dir(sub, 0755);
	late_end(first);
}

/* name number i (from 0) of bigdir-names: length 1 + i % 255, first byte
 * ALNUM62[i / 255], then "abcdefghijklmnopqrstuvwxyz0123456789" cycled by
 * byte position (as mkname) */
static void bigdir_name(char *buf, size_t i)
{
	static const char alnum[] =
		"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	char prefix[2] = { alnum[i / 255], '\0' };

	mkname(buf, prefix, 1 + i % 255);
}

void cmd_bigdir_names(char **tok, int ntok, int lineno)
{
	const char *rel, *sub;
	char p[4200], name[256], path[4096];
	struct stat st;
	size_t first, i, count;

	if (ntok != 3)
		fail("line %d: usage: bigdir-names TREE/DIR COUNT", lineno);
	rel = parse_relpath(tok[1], lineno);
	count = parse_num(tok[2], 62 * 255, lineno);
	abs_path(p, sizeof(p), rel);
	if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode))
		fail("line %d: %s is not an existing directory", lineno, p);
	first = late_begin(rel, &sub, lineno);
	if (!find_entry(rel))
		fail("line %d: %s is not in the manifest (create it with mkdir)", lineno, rel);
	for (i = 0; i < count; i++) {
		bigdir_name(name, i);
		join(path, sizeof(path), sub, name);
		mk_file(path, 0644, 0);
	}
	late_end(first);
}

/* files TREE/DIR NAMEHEX...: regular files 0644 with the given names (hex
 * bytes), of size = the name's length, in an existing manifest directory */
void cmd_files(char **tok, int ntok, int lineno)
{
	const char *rel, *sub;
	char p[4200], name[256], path[4096];
	struct stat st;
	size_t first, len;

	if (ntok < 3)
		fail("line %d: usage: files TREE/DIR NAMEHEX...", lineno);
	rel = parse_relpath(tok[1], lineno);
	abs_path(p, sizeof(p), rel);
	if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode))
		fail("line %d: %s is not an existing directory", lineno, p);
	first = late_begin(rel, &sub, lineno);
	if (!find_entry(rel))
		fail("line %d: %s is not in the manifest", lineno, rel);
	for (int i = 2; i < ntok; i++) {
		len = parse_hex(tok[i], (unsigned char *)name, 255, lineno);
		name[len] = '\0';
		if (strlen(name) != len || strchr(name, '/') || !strcmp(name, ".") ||
		    !strcmp(name, ".."))
			fail("line %d: bad file name %s", lineno, tok[i]);
		join(path, sizeof(path), sub, name);
		mk_file(path, 0644, len);
	}
	late_end(first);
}
