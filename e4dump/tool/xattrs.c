#include <errno.h>
#include <stdlib.h>
#include <sys/xattr.h>
#include <string.h>
#include "escape.h"
#include "jsonout.h"
#include "report.h"
#include "utf8.h"
#include "xattrs.h"

int xattrs_is_text(const uint8_t *v, size_t n)
{
	char esc[E4_ESCAPE_SIZE(4)];

	for (size_t i = 0, k; i < n; i += k) {
		k = e4_utf8_seq_len(v + i, n - i);
		if (!k)
			return 0;
		if (v[i] == '\\')
			continue;
		/* e4_escape keeps a sequence as it is unless a terminal
		 * would act on it: controls, bidirectional controls */
		if (e4_escape(v + i, k, esc, 0) != k || memcmp(esc, v + i, k))
			return 0;
	}
	return 1;
}

/* The text of a POSIX ACL in its VFS form (malloc'd), or NULL. */
static char *acl_text(const struct e4_xattr_item *x)
{
	char *t = x->stored ? malloc(E4_ACL_TEXT_MAX(x->value_len)) : NULL;

	if (t && e4_acl_text(x->value, x->value_len, t) != E4_OK) {
		free(t);
		t = NULL;
	}
	return t;
}

static int to_json(void *arg, const struct e4_xattr_item *x)
{
	json_object *o;
	char *acl;

	if (!x->listed)
		return 0;
	o = json_object_new_object();
	json_object_object_add(o, "name", json_name(x->name));
	if (!x->value) {
		json_object_object_add(o, "error", json_object_new_string(x->error));
	} else {
		json_object_object_add(o, "value_hex", json_hex(x->value, x->value_len));
		if ((acl = acl_text(x))) {
			json_object_object_add(o, "acl", json_object_new_string(acl));
			json_object_object_add(o, "stored_hex", json_hex(x->stored, x->stored_len));
			free(acl);
		} else if (x->acl_error) {
			json_object_object_add(o, "acl_error", json_object_new_string(x->acl_error));
			if (x->acl_none)
				json_object_object_add(o, "acl_none", json_object_new_boolean(1));
		} else if (xattrs_is_text(x->value, x->value_len)) {
			json_object_object_add(o, "value", json_object_new_string_len(
				(const char *)x->value, (int)x->value_len));
		}
	}
	json_object_array_add(arg, o);
	return 0;
}

json_object *xattrs_json(struct e4_fs *fs, const struct e4_inode *in,
			 const char *shown, int quiet, char **error)
{
	json_object *a = json_object_new_array();
	char why[E4_XATTRS_WHY_MAX];

	*error = NULL;
	if (!a)
		return NULL;
	e4_inode_xattrs_why(fs, in, shown, to_json, a, quiet, why, sizeof(why));
	if (why[0] && !(*error = strdup(why))) {
		json_object_put(a);
		return NULL;
	}
	return a;
}

struct print_arg {
	FILE *f[3];     /* the listed ones, the context, the others */
	int n[3];
};

static void where(FILE *f, const struct e4_xattr_item *x)
{
	if (x->block)
		fprintf(f, "block %llu", (unsigned long long)x->block);
	else
		fprintf(f, "inode");
	if (x->value_inum)
		fprintf(f, ", value in EA inode %u", (unsigned)x->value_inum);
}

static int print_one(void *arg, const struct e4_xattr_item *x)
{
	struct print_arg *p = arg;
	int which = x->listed ? 0 : x->index == E4_XATTR_INDEX_ENCRYPTION ? 1 : 2;
	FILE *f = p->f[which];
	char *e;

	if (!f)
		return 0;
	p->n[which]++;
	if (which == 1) {
		fprintf(f, "encryption context: %zu bytes (", x->value_len);
		where(f, x);
		fprintf(f, "; not an attribute Linux shows)\n");
		return 0;
	}
	e = malloc(E4_ESCAPE_SIZE(strlen(x->name)));
	if (e) {
		e4_escape((const uint8_t *)x->name, strlen(x->name), e, 0);
		fprintf(f, "  %s (", e);
		free(e);
	}
	where(f, x);
	if (!x->value) {
		fprintf(f, "): value not read: %s\n", x->error);
		return 0;
	}
	if ((e = acl_text(x))) {
		/* the ACL as getfacl shows it */
		fprintf(f, ", ACL, %zu bytes stored): %s\n", x->stored_len, e);
		free(e);
		return 0;
	}
	fprintf(f, ", %zu bytes): ", x->value_len);
	e = malloc(E4_ESCAPE_SIZE(x->value_len));
	if (e) {
		e4_escape(x->value, x->value_len, e, 0);
		fputs(e, f);
		free(e);
	}
	if (x->acl_error)
		fprintf(f, " [as stored: %s: %s]", x->acl_none ? "an ACL Linux reads as none" :
			"not an ACL Linux reads", x->acl_error);
	fputc('\n', f);
	return 0;
}

void xattrs_print(FILE *f, struct e4_fs *fs, const struct e4_inode *in,
		  const char *shown, int quiet)
{
	static const char *head[3] = { "xattrs:\n", "", "xattrs Linux does not list:\n" };
	struct print_arg p = { { NULL, NULL, NULL }, { 0, 0, 0 } };
	char *text[3] = { NULL, NULL, NULL }, why[E4_XATTRS_WHY_MAX];
	size_t len[3];

	for (int i = 0; i < 3; i++)
		p.f[i] = open_memstream(&text[i], &len[i]);
	e4_inode_xattrs_why(fs, in, shown, print_one, &p, quiet, why, sizeof(why));
	for (int i = 0; i < 3; i++) {
		if (p.f[i])
			fclose(p.f[i]);
		if (p.n[i] && text[i])
			fprintf(f, "%s%s", head[i], text[i]);
		/* "none" only when every area was read */
		if (i == 0 && why[0])
			fprintf(f, "xattrs: unreadable: %s\n", why);
		else if (i == 0 && !p.n[0])
			fprintf(f, "xattrs: none\n");
		free(text[i]);
	}
}

static int collect_one(void *arg, const struct e4_xattr_item *x)
{
	struct xattr_set *s = arg;
	struct xattr_one *v, *o;

	if (!x->listed)
		return 0;
	v = realloc(s->v, (s->n + 1) * sizeof(*v));
	if (!v)
		return 1;
	s->v = v;
	o = &v[s->n];
	memset(o, 0, sizeof(*o));
	o->name = strdup(x->name);
	o->index = x->index;
	o->len = x->value_len;
	o->error = x->error;
	if (x->acl_error) {
		/* Linux's getxattr refuses it (EINVAL) or has none (ENODATA):
		 * not served, not set */
		o->error = x->acl_error;
		o->none = x->acl_none;
	} else if (x->value) {
		o->value = malloc(x->value_len ? x->value_len : 1);
		if (o->value)
			memcpy(o->value, x->value, x->value_len);
	}
	if (!o->name || (x->value && !x->acl_error && !o->value)) {
		free(o->name);
		free(o->value);
		return 1;
	}
	s->n++;
	return 0;
}

enum e4_status xattrs_collect(struct e4_fs *fs, const struct e4_inode *in,
			      const char *shown, struct xattr_set *set)
{
	enum e4_status st;

	set->v = NULL;
	set->n = 0;
	st = e4_inode_xattrs(fs, in, shown, collect_one, set);
	return st == E4_STOPPED ? E4_NOMEM : st;
}

void xattrs_free(struct xattr_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->v[i].name);
		free(set->v[i].value);
	}
	free(set->v);
	set->v = NULL;
	set->n = 0;
}

/* What extract --xattrs at level restores. */
static int restored(uint8_t index, int level)
{
	return index == E4_XATTR_INDEX_USER ||
	       (level >= 2 && (index == E4_XATTR_INDEX_SECURITY ||
			       index == E4_XATTR_INDEX_TRUSTED ||
			       index == E4_XATTR_INDEX_POSIX_ACL_ACCESS ||
			       index == E4_XATTR_INDEX_POSIX_ACL_DEFAULT));
}

struct xattr_set *xattrs_for_restore(struct e4_fs *fs, const struct e4_inode *in,
				     const char *path, int level)
{
	struct xattr_set *set = malloc(sizeof(*set));
	size_t k = 0;

	if (!set)
		return NULL;
	xattrs_collect(fs, in, path, set);
	for (size_t i = 0; i < set->n; i++) {
		if (restored(set->v[i].index, level)) {
			set->v[k++] = set->v[i];
		} else {
			free(set->v[i].name);
			free(set->v[i].value);
		}
	}
	set->n = k;
	if (!k) {
		xattrs_set_free(set);
		return NULL;
	}
	return set;
}

void xattrs_set_free(struct xattr_set *set)
{
	if (set) {
		xattrs_free(set);
		free(set);
	}
}

int xattrs_restore(struct report *r, const char *path, uint32_t ino,
		   const struct xattr_set *set, int level, int fd, int dirfd,
		   const char *name)
{
	char proc[64 + 256];
	int failed = 0;

	if (!set)
		return 0;
	if (fd < 0)
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d/%s", dirfd, name);
	for (size_t i = 0; i < set->n; i++) {
		const struct xattr_one *x = &set->v[i];
		char *e;
		int rc;

		if (!restored(x->index, level) || x->none)
			continue; /* (an ACL Linux reads as none: nothing to set) */
		if (!x->value) {
			rc = -1;
			errno = 0;
		} else if (fd >= 0) {
			rc = fsetxattr(fd, x->name, x->value, x->len, 0);
		} else {
			rc = lsetxattr(proc, x->name, x->value, x->len, 0);
		}
		if (!rc)
			continue;
		failed++;
		e = malloc(E4_ESCAPE_SIZE(strlen(x->name)));
		if (e)
			e4_escape((const uint8_t *)x->name, strlen(x->name), e, 0);
		report_error_at(r, path, ino, "--xattrs: %s not restored: %s",
				e ? e : "?",
				!x->value ? x->error :
				fd < 0 && x->index == E4_XATTR_INDEX_USER && errno == EPERM ?
				"Linux allows user.* attributes on files and directories only" :
				errno == ENOTSUP ? "the output filesystem does not support it" :
				errno == ENOSPC || errno == E2BIG ?
				"the output filesystem has no room for it in this file's attributes" :
				strerror(errno));
		free(e);
	}
	return failed;
}
