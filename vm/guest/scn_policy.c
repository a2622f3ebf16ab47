/* e4dump QEMU guest, scenario commands: policy probes (policy-try,
 * policy-nonempty) and policy inheritance (inherit). */
#include "guest.h"

/* policy-try TAG DIR 1|2 CMODE FMODE FLAGS: make the empty directory DIR, try
 * to set a policy (v1: descriptor 00..07; v2: identifier 0, no key added) and
 * record "policy-try TAG ERRNO" (0: it was set). */
void cmd_policy_try(char **tok, int ntok, int lineno)
{
	struct e4_fscrypt_policy_v1 p1;
	struct e4_fscrypt_policy_v2 p2;
	const char *tag, *dir;
	unsigned long ver, cmode, fmode, pflags;
	char p[4200];
	int fd, r, e = 0;

	if (ntok != 7)
		fail("line %d: usage: policy-try TAG DIR 1|2 CMODE FMODE FLAGS", lineno);
	tag = parse_tag(tok[1], lineno);
	dir = parse_relpath(tok[2], lineno);
	ver = parse_num(tok[3], 2, lineno);
	cmode = parse_num(tok[4], 255, lineno);
	fmode = parse_num(tok[5], 255, lineno);
	pflags = parse_num(tok[6], 255, lineno);
	if (ver != 1 && ver != 2)
		fail("line %d: policy version must be 1 or 2", lineno);
	abs_path(p, sizeof(p), dir);
	if (mkdir(p, 0755) < 0)
		FAILE("line %d: mkdir %s", lineno, p);
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("line %d: open %s", lineno, p);
	if (ver == 1) {
		memset(&p1, 0, sizeof(p1));
		for (r = 0; r < 8; r++)
			p1.master_key_descriptor[r] = (uint8_t)r;
		p1.contents_encryption_mode = (uint8_t)cmode;
		p1.filenames_encryption_mode = (uint8_t)fmode;
		p1.flags = (uint8_t)pflags;
		r = ioctl(fd, E4_IOC_SET_ENCRYPTION_POLICY, &p1);
	} else {
		memset(&p2, 0, sizeof(p2));
		p2.version = 2;
		p2.contents_encryption_mode = (uint8_t)cmode;
		p2.filenames_encryption_mode = (uint8_t)fmode;
		p2.flags = (uint8_t)pflags;
		r = ioctl(fd, E4_IOC_SET_ENCRYPTION_POLICY, &p2);
	}
	if (r < 0)
		e = errno;
	close(fd);
	man_add("policy-try %s %d\n", tag, e);
	say("e4dump-guest: policy v%lu %lu/%lu flags %lu on %s: %s", ver, cmode, fmode,
	    pflags, p, e ? strerror(e) : "set");
}

void cmd_policy_nonempty(char **tok, int ntok, int lineno)
{
	struct e4_fscrypt_policy_v1 pol;
	const char *dir;
	char p[4200], f[4200];
	int fd, e = 0;

	if (ntok != 3)
		fail("line %d: usage: policy-nonempty DIR DESCHEX", lineno);
	dir = parse_relpath(tok[1], lineno);
	memset(&pol, 0, sizeof(pol));
	if (parse_hex(tok[2], pol.master_key_descriptor, 8, lineno) != 8)
		fail("line %d: descriptor must be 8 bytes", lineno);
	pol.contents_encryption_mode = 1;
	pol.filenames_encryption_mode = 4;
	abs_path(p, sizeof(p), dir);
	if (mkdir(p, 0755) < 0)
		FAILE("line %d: mkdir %s", lineno, p);
	join(f, sizeof(f), p, "file");
	fd = open(f, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || close(fd) < 0)
		FAILE("line %d: create %s", lineno, f);
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("line %d: open %s", lineno, p);
	if (ioctl(fd, E4_IOC_SET_ENCRYPTION_POLICY, &pol) < 0)
		e = errno;
	close(fd);
	man_add("policy-nonempty %s %d\n", dir, e);
	say("e4dump-guest: policy on non-empty %s: %s", p, e ? strerror(e) : "succeeded");
}

struct inherit_state {
	const char *tag;
	struct e4_get_policy_ex_arg root;
	size_t total, same, symlinks;
	char *diffs; /* "inherit-diff" lines, appended after the summary */
	size_t dlen;
};

static void inherit_rec(struct inherit_state *s, const char *rel)
{
	size_t n, i;
	struct dent *v = list_dir(rel, &n);
	char sub[4096];

	for (i = 0; i < n; i++) {
		struct e4_get_policy_ex_arg a;
		int e;

		join(sub, sizeof(sub), rel, v[i].name);
		if (v[i].type == DT_LNK) {
			s->symlinks++;
			continue;
		}
		if (v[i].type != DT_DIR && v[i].type != DT_REG)
			continue;
		s->total++;
		e = get_policy(sub, v[i].type == DT_DIR, &a);
		if (!e && a.policy_size == s->root.policy_size &&
		    !memcmp(a.policy, s->root.policy, a.policy_size)) {
			s->same++;
		} else {
			size_t need = 64 + 2 * strlen(sub) + strlen(s->tag);
			size_t k;

			s->diffs = realloc(s->diffs, s->dlen + need);
			if (!s->diffs)
				fail("out of memory");
			s->dlen += sprintf(s->diffs + s->dlen, "inherit-diff %s ", s->tag);
			for (k = 0; sub[k]; k++)
				s->dlen += sprintf(s->diffs + s->dlen, "%02x", (unsigned char)sub[k]);
			s->dlen += sprintf(s->diffs + s->dlen, " %d\n", e);
		}
		if (v[i].type == DT_DIR)
			inherit_rec(s, sub);
	}
	free_list(v, n);
}

void cmd_inherit(char **tok, int ntok, int lineno)
{
	struct inherit_state s;
	char rel[4096];
	int e;

	if (ntok != 3)
		fail("line %d: usage: inherit TAG DIR", lineno);
	memset(&s, 0, sizeof(s));
	s.tag = parse_tag(tok[1], lineno);
	resolve(parse_relpath(tok[2], lineno), rel, sizeof(rel), lineno);
	e = get_policy(rel, 1, &s.root);
	if (e)
		fail_errno(e, "line %d: FS_IOC_GET_ENCRYPTION_POLICY_EX on %s/%s", lineno, MNT, rel);
	inherit_rec(&s, rel);
	man_add("inherit %s %zu %zu\n", s.tag, s.total, s.same);
	man_add("inherit-symlinks %s %zu\n", s.tag, s.symlinks);
	if (s.dlen)
		man_add("%.*s", (int)s.dlen, s.diffs);
	free(s.diffs);
	say("e4dump-guest: inherit %s: %zu of %zu same policy, %zu symlinks", rel, s.same,
	    s.total, s.symlinks);
}
