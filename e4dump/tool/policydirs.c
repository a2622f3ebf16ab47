#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "inode.h"
#include "policydirs.h"
#include "walk.h"

struct collect {
	struct policy_dirs *pd;
	struct report *r;
	int nomem;
};

static struct policy_tops *tops_of(struct policy_dirs *pd,
				   const struct e4_context *ctx)
{
	for (size_t i = 0; i < pd->n; i++)
		if (e4_context_same_policy(&pd->pol[i].ctx, ctx))
			return &pd->pol[i];
	if (pd->n == POLICYDIRS_MAX_POLICIES)
		return NULL;
	memset(&pd->pol[pd->n], 0, sizeof(pd->pol[0]));
	pd->pol[pd->n].ctx = *ctx;
	return &pd->pol[pd->n++];
}

static void policy_words(const struct e4_context *c, char *out, size_t len)
{
	char hex[33];

	e4_context_key_id_hex(c, hex);
	snprintf(out, len, "policy v%u %s %s", c->version,
		 c->version == E4_CONTEXT_V1 ? "descriptor" : "identifier", hex);
}

/* A directory about to be entered: its own listing says its policy, the
 * listing it is in says its parent's. */
static enum e4_walk_action enter_dir(void *arg, const struct e4_walk_node *n,
				     const struct e4_dir *listing, void **data)
{
	struct collect *c = arg;
	const struct e4_dir_facts *me = e4_dir_facts(listing), *up = n->parent;
	struct policy_tops *t;
	struct policy_top *top;
	int inside;

	(void)data;
	if (!me->encrypted || me->broken)
		return E4_WALK_CONTINUE;
	if (up && up->encrypted && !up->broken &&
	    e4_context_same_policy(&up->ctx, &me->ctx))
		return E4_WALK_CONTINUE;
	inside = up && up->encrypted && !up->broken;
	if (inside) {
		char mine[80], outer[80];

		policy_words(&me->ctx, mine, sizeof(mine));
		policy_words(&up->ctx, outer, sizeof(outer));
		report_warning_at(c->r, n->path, n->ino,
				  "a directory of %s inside a directory of %s (the kernel sets a policy only on an empty directory, and its entries inherit its parent's)",
				  mine, outer);
	}
	t = tops_of(c->pd, &me->ctx);
	if (!t) {
		c->pd->more++;
		return E4_WALK_CONTINUE;
	}
	if (t->n == POLICYDIRS_MAX_TOPS) {
		t->more++;
		return E4_WALK_CONTINUE;
	}
	if (!t->top && !(t->top = calloc(POLICYDIRS_MAX_TOPS, sizeof(*t->top)))) {
		c->nomem = 1;
		return E4_WALK_STOP;
	}
	top = &t->top[t->n];
	top->path = strdup(n->path);
	if (!top->path) {
		c->nomem = 1;
		return E4_WALK_STOP;
	}
	top->ino = n->ino;
	top->inside = inside;
	if (inside)
		top->outer = up->ctx;
	t->n++;
	return E4_WALK_CONTINUE;
}

void policy_dirs_collect(struct e4_fs *fs, struct report *r,
			 struct policy_dirs *pd)
{
	/* only directories' inodes are needed: the scan tells the rest */
	struct e4_walk_options wo = { .recursive = 1, .prescan = 1,
				      .list_flags = E4_LIST_QUIET };
	struct e4_walk_visitor v = { NULL, enter_dir, NULL, NULL };
	struct collect c = { pd, r, 0 };

	memset(pd, 0, sizeof(*pd));
	pd->walked = 1;
	e4_walk(fs, E4_ROOT_INO, "/", &wo, &v, &c, NULL);
	if (c.nomem)
		report_error(r, "out of memory listing the directories of each policy");
}

void policy_dirs_free(struct policy_dirs *pd)
{
	for (size_t i = 0; i < pd->n; i++) {
		for (size_t k = 0; k < pd->pol[i].n; k++)
			free(pd->pol[i].top[k].path);
		free(pd->pol[i].top);
	}
	pd->n = 0;
}

static void emit_one(const struct policy_top *t, json_object *a,
		     const char *indent)
{
	char outer[80], hex[33];

	if (a) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "path", json_object_new_string(t->path));
		json_object_object_add(o, "inode", json_object_new_int64(t->ino));
		if (t->inside)
			e4_context_key_id_hex(&t->outer, hex);
		json_object_object_add(o, "inside_policy",
				       t->inside ? json_object_new_string(hex) : NULL);
		json_object_array_add(a, o);
	}
	if (indent) {
		if (t->inside)
			policy_words(&t->outer, outer, sizeof(outer));
		printf("%sdirectory %s (inode %u)%s%s\n", indent, t->path, t->ino,
		       t->inside ? ", inside a directory of " : "",
		       t->inside ? outer : "");
	}
}

int policy_dirs_tracked(const struct policy_dirs *pd, const struct e4_context *ctx)
{
	for (size_t i = 0; i < pd->n; i++)
		if (e4_context_same_policy(&pd->pol[i].ctx, ctx))
			return 1;
	return 0;
}

static size_t emit_matching(const struct policy_dirs *pd,
			    int (*match)(const struct e4_context *, const void *),
			    const void *arg, json_object *a, const char *indent,
			    size_t *more)
{
	size_t listed = 0;

	*more = 0;
	for (size_t i = 0; i < pd->n; i++) {
		if (!match(&pd->pol[i].ctx, arg))
			continue;
		for (size_t k = 0; k < pd->pol[i].n; k++)
			emit_one(&pd->pol[i].top[k], a, indent);
		listed += pd->pol[i].n;
		*more += pd->pol[i].more;
	}
	if (indent && *more)
		printf("%s(%zu more top directories not listed)\n", indent, *more);
	return listed;
}

struct key_match {
	unsigned int version;
	const char *hex;
};

static int by_key(const struct e4_context *c, const void *arg)
{
	const struct key_match *m = arg;
	char hex[33];

	e4_context_key_id_hex(c, hex);
	return c->version == m->version && !strcmp(hex, m->hex);
}

static int by_ctx(const struct e4_context *c, const void *arg)
{
	return e4_context_same_policy(c, arg);
}

size_t policy_dirs_emit(const struct policy_dirs *pd, unsigned int version,
			const char *key_hex, json_object *a,
			const char *indent, size_t *more)
{
	struct key_match m = { version, key_hex };

	return emit_matching(pd, by_key, &m, a, indent, more);
}

size_t policy_dirs_emit_ctx(const struct policy_dirs *pd,
			    const struct e4_context *ctx, json_object *a,
			    const char *indent, size_t *more)
{
	return emit_matching(pd, by_ctx, ctx, a, indent, more);
}
