/* Findings of e4dump verify: collected, sorted by inode, printed as text
 * lines or JSON objects (json-c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "jsonout.h"
#include "session.h"
#include "verify.h"

const struct check_def check_defs[CHECK_COUNT] = {
#define X(name, id, what) { id, what },
	VERIFY_CHECKS(X)
#undef X
};

struct pnode *pnode_new(struct pnode *parent, const char *name, size_t len)
{
	struct pnode *p = malloc(sizeof(*p) + len + 1);

	if (!p)
		return NULL;
	p->parent = parent ? pnode_ref(parent) : NULL;
	p->refs = 1;
	p->len = len;
	memcpy(p->name, name, len);
	p->name[len] = '\0';
	return p;
}

struct pnode *pnode_ref(struct pnode *p)
{
	if (p)
		p->refs++;
	return p;
}

void pnode_unref(struct pnode *p)
{
	while (p && --p->refs == 0) {
		struct pnode *parent = p->parent;

		free(p);
		p = parent;
	}
}

/* The display path of (dir, name), malloc'd. */
static char *path_string(const struct pnode *dir, const char *name)
{
	size_t len = name ? strlen(name) + 1 : 0, at;
	char *s;

	for (const struct pnode *p = dir; p && p->parent; p = p->parent)
		len += p->len + 1;
	if (!len)
		return strdup("/");
	s = malloc(len + 1);
	if (!s)
		return NULL;
	at = len;
	s[at] = '\0';
	if (name) {
		at -= strlen(name);
		memcpy(s + at, name, strlen(name));
		s[--at] = '/';
	}
	for (const struct pnode *p = dir; p && p->parent; p = p->parent) {
		at -= p->len;
		memcpy(s + at, p->name, p->len);
		s[--at] = '/';
	}
	return s;
}

static size_t slot_of(uint32_t ino, size_t cap)
{
	return (size_t)(ino * 2654435761u) & (cap - 1);
}

static struct path_of *path_slot(struct verify *v, uint32_t ino)
{
	if (!v->cappaths)
		return NULL;
	for (size_t j = slot_of(ino, v->cappaths); v->paths[j].ino;
	     j = (j + 1) & (v->cappaths - 1))
		if (v->paths[j].ino == ino)
			return &v->paths[j];
	return NULL;
}

/* Ask the walk for ino's place. */
static void want_path(struct verify *v, uint32_t ino)
{
	size_t j;

	if (!ino || path_slot(v, ino))
		return;
	if ((v->npaths + 1) * 2 > v->cappaths) {
		size_t cap = v->cappaths ? 2 * v->cappaths : 64;
		struct path_of *p = calloc(cap, sizeof(*p));

		if (!p) {
			v->nomem = 1;
			return;
		}
		for (size_t i = 0; i < v->cappaths; i++) {
			if (!v->paths[i].ino)
				continue;
			for (j = slot_of(v->paths[i].ino, cap); p[j].ino;
			     j = (j + 1) & (cap - 1))
				;
			p[j] = v->paths[i];
		}
		free(v->paths);
		v->paths = p;
		v->cappaths = cap;
	}
	for (j = slot_of(ino, v->cappaths); v->paths[j].ino;
	     j = (j + 1) & (v->cappaths - 1))
		;
	v->paths[j].ino = ino;
	v->npaths++;
}

void verify_saw_path(struct verify *v, uint32_t ino, const struct vref *at)
{
	struct path_of *p = path_slot(v, ino);

	if (!p || p->seen)
		return;
	p->seen = 1;
	p->dir = pnode_ref(at->dir);
	if (at->name && !(p->name = strdup(at->name)))
		v->nomem = 1;
}

/* The path of finding f, malloc'd. */
static char *finding_path(struct verify *v, const struct finding *f)
{
	struct path_of *p;

	if (f->dir)
		return path_string(f->dir, f->name);
	if (f->ino == 0)
		return strdup("");
	p = path_slot(v, f->ino);
	return p && p->seen ? path_string(p->dir, p->name) :
			      strdup("(not reachable from the root)");
}

void vfind(struct verify *v, enum check_id check, uint32_t ino,
	   const struct vref *at, const char *fmt, ...)
{
	struct finding *f;
	va_list ap;
	char *msg = NULL;
	int r;

	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 64;

		f = realloc(v->v, cap * sizeof(*f));
		if (!f) {
			v->nomem = 1;
			return;
		}
		v->v = f;
		v->cap = cap;
	}
	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0) {
		v->nomem = 1;
		return;
	}
	f = &v->v[v->n];
	f->ino = ino;
	f->check = check;
	f->message = msg;
	f->dir = NULL;
	f->name = NULL;
	f->seq = v->n;
	if (at) {
		f->dir = pnode_ref(at->dir ? at->dir : v->root);
		if (at->name && !(f->name = strdup(at->name))) {
			pnode_unref(f->dir);
			free(msg);
			v->nomem = 1;
			return;
		}
	} else {
		want_path(v, ino);
	}
	v->n++;
}

static int cmp_finding(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_same(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	int c;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->check != y->check)
		return x->check < y->check ? -1 : 1;
	c = strcmp(x->message, y->message);
	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The same finding met twice (an inode read by two passes) is kept once,
 * the first; then the findings are sorted by inode and discovery. */
static void drop_repeats(struct verify *v)
{
	size_t out = 0;

	if (v->n)
		qsort(v->v, v->n, sizeof(*v->v), cmp_same);
	for (size_t i = 0; i < v->n; i++) {
		struct finding *f = &v->v[i];

		if (out && v->v[out - 1].ino == f->ino &&
		    v->v[out - 1].check == f->check &&
		    !strcmp(v->v[out - 1].message, f->message)) {
			pnode_unref(f->dir);
			free(f->name);
			free(f->message);
			continue;
		}
		v->v[out++] = *f;
	}
	v->n = out;
	if (v->n)
		qsort(v->v, v->n, sizeof(*v->v), cmp_finding);
}

static void print_json(json_object *o)
{
	json_well_formed(o);
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

void verify_print(struct verify *v)
{
	json_object *counts = v->json ? json_object_new_object() : NULL;
	int is2015 = v->format == E4_FORMAT_2015;

	drop_repeats(v);
	for (size_t i = 0; i < v->n; i++) {
		struct finding *f = &v->v[i];
		char *path = finding_path(v, f);
		const char *id = check_defs[f->check].id;

		if (!path) {
			v->nomem = 1;
			break;
		}
		if (v->json) {
			json_object *o = json_object_new_object();
			json_object *c = NULL;

			json_object_object_add(o, "type", json_object_new_string("finding"));
			json_object_object_add(o, "check", json_object_new_string(id));
			json_object_object_add(o, "inode", json_object_new_int64(f->ino));
			json_object_object_add(o, "path", json_object_new_string(path));
			json_object_object_add(o, "message", json_object_new_string(f->message));
			print_json(o);
			if (json_object_object_get_ex(counts, id, &c))
				json_object_set_int64(c, json_object_get_int64(c) + 1);
			else
				json_object_object_add(counts, id, json_object_new_int64(1));
		} else {
			printf("%s: inode %u: %s: %s\n", id, f->ino,
			       *path ? path : "-", f->message);
		}
		free(path);
	}
	if (v->json) {
		/* the summary every command gives, with verify's counts */
		json_object *o = json_summary("verify", v->r, v->n ? EXIT_FINDINGS : EXIT_DONE);
		struct e4_fs_info info;

		e4_fs_get_info(v->fs, &info);
		json_object_object_add(o, "image", json_object_new_string(info.name));
		json_object_object_add(o, "findings", json_object_new_int64((int64_t)v->n));
		json_object_object_add(o, "checks", counts);
		json_object_object_add(o, "format",
				       json_object_new_string(is2015 ? "2015" : "6.1"));
		json_object_object_add(o, "inodes", json_object_new_int64((int64_t)v->inodes));
		json_object_object_add(o, "directories", json_object_new_int64((int64_t)v->dirs));
		json_object_object_add(o, "entries", json_object_new_int64((int64_t)v->entries));
		if (v->evidence)
			json_object_object_add(o, "evidence", json_object_get(v->evidence));
		print_json(o);
	} else {
		printf("verify: %zu finding%s (%zu inodes, %zu directories, %zu entries; names judged by the %s rule)\n",
		       v->n, v->n == 1 ? "" : "s", v->inodes, v->dirs, v->entries,
		       is2015 ? "2015" : "Linux 6.1");
	}
}

void verify_free(struct verify *v)
{
	for (size_t i = 0; i < v->n; i++) {
		pnode_unref(v->v[i].dir);
		free(v->v[i].name);
		free(v->v[i].message);
	}
	free(v->v);
	for (size_t i = 0; i < v->cappaths; i++) {
		pnode_unref(v->paths[i].dir);
		free(v->paths[i].name);
	}
	free(v->paths);
	for (size_t g = 0; g < v->nkind_groups; g++)
		free(v->kinds[g]);
	free(v->kinds);
	pnode_unref(v->root);
	json_object_put(v->evidence);
	memset(v, 0, sizeof(*v));
}
