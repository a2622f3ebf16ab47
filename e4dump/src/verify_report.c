/* Findings of e4dump verify: collected, sorted by inode, printed as text
 * lines or JSON objects (json-c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "verify.h"

const char *verify_path(struct verify *v, ext2_ino_t ino)
{
	if (ino == 0)
		return "";
	if (ino <= v->ninodes && v->path && v->path[ino])
		return v->path[ino];
	return "(not reachable from the root)";
}

void vfind(struct verify *v, ext2_ino_t ino, const char *path, const char *id,
	   const char *fmt, ...)
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
	f->id = id;
	f->message = msg;
	f->path = path ? strdup(path) : NULL;
	f->seq = v->n;
	if (path && !f->path) {
		free(msg);
		v->nomem = 1;
		return;
	}
	v->n++;
}

/* Linux 6.1: min(round_up(max(len, 16), padding), 255). */
static unsigned int stored61(int len, unsigned int pad)
{
	unsigned int n = len < 16 ? 16u : (unsigned int)len;

	n = (n + pad - 1) / pad * pad;
	return n > 255 ? 255u : n;
}

static unsigned int stored2015(int len)
{
	return len < 16 ? 16u : (unsigned int)len;
}

void vlen_candidate(struct verify *v, ext2_ino_t ino, const char *path,
		    unsigned int stored, unsigned int pad, int plain_len)
{
	struct len_candidate *c;
	int bad61, bad2015;

	if (plain_len >= 0) {
		bad61 = stored != stored61(plain_len, pad);
		bad2015 = stored != stored2015(plain_len);
	} else {
		bad61 = stored != 255 && stored % pad;
		bad2015 = 0; /* any length >= 16 */
	}
	if (!bad61 && !bad2015)
		return;
	if (v->nlc == v->caplc) {
		size_t cap = v->caplc ? 2 * v->caplc : 64;

		c = realloc(v->lc, cap * sizeof(*c));
		if (!c) {
			v->nomem = 1;
			return;
		}
		v->lc = c;
		v->caplc = cap;
	}
	c = &v->lc[v->nlc];
	c->path = strdup(path);
	if (!c->path) {
		v->nomem = 1;
		return;
	}
	c->ino = ino;
	c->stored = stored;
	c->pad = pad;
	c->plain_len = plain_len;
	c->bad61 = bad61;
	c->bad2015 = bad2015;
	v->nlc++;
}

/* v->format was decided (verify_decide_format) before the walk. */
void verify_judge_lengths(struct verify *v)
{
	for (size_t i = 0; i < v->nlc; i++) {
		struct len_candidate *c = &v->lc[i];
		int is2015 = v->format == FORMAT_2015;

		if (is2015 ? c->bad2015 : c->bad61) {
			if (c->plain_len >= 0)
				vfind(v, c->ino, c->path, "name.padding",
				      "stored name length %u, but a %d-byte name is stored as %u bytes (%s rule, padding %u)",
				      c->stored, c->plain_len,
				      is2015 ? stored2015(c->plain_len) :
					       stored61(c->plain_len, c->pad),
				      is2015 ? "2015" : "Linux 6.1", c->pad);
			else
				vfind(v, c->ino, c->path, "name.padding",
				      "stored name length %u is neither 255 nor a multiple of the padding %u",
				      c->stored, c->pad);
		}
		free(c->path);
	}
	free(v->lc);
	v->lc = NULL;
	v->nlc = v->caplc = 0;
}

static int cmp_finding(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void print_json(json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

void verify_print(struct verify *v)
{
	json_object *counts = v->json ? json_object_new_object() : NULL;

	if (v->n)
		qsort(v->v, v->n, sizeof(*v->v), cmp_finding);
	for (size_t i = 0; i < v->n; i++) {
		struct finding *f = &v->v[i];
		const char *path = f->path ? f->path : verify_path(v, f->ino);

		if (v->json) {
			json_object *o = json_object_new_object();
			json_object *c = NULL;

			json_object_object_add(o, "type", json_object_new_string("finding"));
			json_object_object_add(o, "check", json_object_new_string(f->id));
			json_object_object_add(o, "inode", json_object_new_int64(f->ino));
			json_object_object_add(o, "path", json_object_new_string(path));
			json_object_object_add(o, "message", json_object_new_string(f->message));
			print_json(o);
			if (json_object_object_get_ex(counts, f->id, &c))
				json_object_set_int64(c, json_object_get_int64(c) + 1);
			else
				json_object_object_add(counts, f->id, json_object_new_int64(1));
		} else {
			printf("%s: inode %u: %s: %s\n", f->id, f->ino,
			       *path ? path : "-", f->message);
		}
	}
	if (v->json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "type", json_object_new_string("summary"));
		json_object_object_add(o, "image", json_object_new_string(v->im->path));
		json_object_object_add(o, "findings", json_object_new_int64((int64_t)v->n));
		json_object_object_add(o, "checks", counts);
		json_object_object_add(o, "format", json_object_new_string(
			v->format == FORMAT_2015 ? "2015" : "6.1"));
		json_object_object_add(o, "inodes", json_object_new_int64((int64_t)v->inodes));
		json_object_object_add(o, "directories", json_object_new_int64((int64_t)v->dirs));
		json_object_object_add(o, "entries", json_object_new_int64((int64_t)v->entries));
		print_json(o);
	} else {
		printf("verify: %zu finding%s (%zu inodes, %zu directories, %zu entries; names judged by the %s rule)\n",
		       v->n, v->n == 1 ? "" : "s", v->inodes, v->dirs,
		       v->entries, v->format == FORMAT_2015 ? "2015" : "Linux 6.1");
	}
	fflush(stdout);
}

void verify_free(struct verify *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free(v->v[i].path);
		free(v->v[i].message);
	}
	free(v->v);
	for (size_t i = 0; i < v->nlc; i++)
		free(v->lc[i].path);
	free(v->lc);
	if (v->path)
		for (uint32_t i = 0; i <= v->ninodes; i++)
			free(v->path[i]);
	free(v->path);
	free(v->parent);
	memset(v, 0, sizeof(*v));
}
