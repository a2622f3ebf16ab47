/* e4dump QEMU guest, scenario commands: extended attributes (vm/README.md,
 * "Extended attributes"): xattr-set, xattr-set-gen, xattr-list.  What
 * listxattr and getxattr return is the truth e4dump's stat, mount and
 * extract --xattrs are checked against (tests/vm/xattrs.sh). */
#include <sys/xattr.h>
#include "guest.h"

/* setxattr(/mnt/PATH, NAME, value, len, 0); records "xattr-set TAG
 * PATHHEX NAME ERRNO" (0: set).  Only a setup error fails the run. */
static void set_one(const char *tag, const char *rel, const char *name,
		    const unsigned char *v, size_t len)
{
	char p[4200];
	int err = 0;

	abs_path(p, sizeof(p), rel);
	if (setxattr(p, name, v, len, 0) < 0)
		err = errno;
	man_add("xattr-set %s ", tag);
	man_hex(rel, strlen(rel));
	man_add(" %s %d\n", name, err);
}

/* xattr-set TAG PATH NAME VALUEHEX; xattr-set-gen TAG PATH NAME SIZE: the
 * value is the content generator's stream for seed fnv1a64(NAME), SIZE
 * bytes (1..65536) */
void cmd_xattr_set(char **tok, int ntok, int lineno)
{
	int gen = !strcmp(tok[0], "xattr-set-gen");
	char rel[1100];
	unsigned char *v;
	size_t len;

	if (ntok != 5)
		fail("line %d: usage: %s TAG PATH NAME %s", lineno, tok[0],
		     gen ? "SIZE" : "VALUEHEX");
	parse_plainpath(tok[2], rel, sizeof(rel), lineno);
	if (gen) {
		len = parse_num(tok[4], 65536, lineno);
		if (!len)
			fail("line %d: xattr-set-gen: SIZE 0", lineno);
		v = gen_content(fnv1a64(tok[3]), len);
	} else {
		v = xmalloc(strlen(tok[4]) / 2 + 1);
		len = parse_hex(tok[4], v, strlen(tok[4]) / 2 + 1, lineno);
	}
	set_one(parse_tag(tok[1], lineno), rel, tok[3], v, len);
	free(v);
}

/* xattr-list TAG PATH: listxattr(/mnt/PATH), then getxattr of each name;
 * records "xattr TAG PATHHEX NAMEHEX VALUEHEX|-" per name in the order
 * listxattr gives them ("-": empty value), then "xattr-count TAG PATHHEX
 * N". */
void cmd_xattr_list(char **tok, int ntok, int lineno)
{
	char rel[1100], p[4200];
	char *names;
	unsigned char *v;
	ssize_t n, vl;
	const char *tag;
	int count = 0;

	if (ntok != 3)
		fail("line %d: usage: xattr-list TAG PATH", lineno);
	tag = parse_tag(tok[1], lineno);
	parse_plainpath(tok[2], rel, sizeof(rel), lineno);
	abs_path(p, sizeof(p), rel);
	n = llistxattr(p, NULL, 0);
	if (n < 0)
		FAILE("listxattr %s", p);
	names = xmalloc((size_t)n + 1);
	n = llistxattr(p, names, (size_t)n);
	if (n < 0)
		FAILE("listxattr %s", p);
	v = xmalloc(65536);
	for (char *c = names; c < names + n; c += strlen(c) + 1) {
		vl = lgetxattr(p, c, v, 65536);
		if (vl < 0)
			FAILE("getxattr %s %s", p, c);
		man_add("xattr %s ", tag);
		man_hex(rel, strlen(rel));
		man_add(" ");
		man_hex(c, strlen(c));
		man_add(" ");
		if (vl)
			man_hex(v, (size_t)vl);
		else
			man_add("-");
		man_add("\n");
		count++;
	}
	man_add("xattr-count %s ", tag);
	man_hex(rel, strlen(rel));
	man_add(" %d\n", count);
	free(v);
	free(names);
}
