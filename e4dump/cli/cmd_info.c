/* e4dump info: the filesystem's encryption facts and its policies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "escape.h"
#include "inode.h"
#include "jsonout.h"
#include "record.h"
#include "modes.h"
#include "policydirs.h"
#include "session.h"

#define MAX_POLICIES 64

struct policy_count {
	struct e4_context ctx;
	size_t inodes;
};

static void print_hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static void describe(struct session *s, const struct e4_context *c, char *buf,
		     size_t len)
{
	struct e4_policy_key pk;

	e4_fs_policy_key(s->fs, c, &pk);
	if (pk.open && pk.key >= 0)
		snprintf(buf, len, "opened by %s (%s)",
			 e4_keystore_key(s->keys, (size_t)pk.key)->label, pk.how);
	else if (pk.open)
		snprintf(buf, len, "opened by %s", pk.how);
	else if (!e4_keystore_count(s->keys))
		snprintf(buf, len, "no key given");
	else
		snprintf(buf, len, "no key opens it (%s)", pk.how);
}

/* What the index of encrypted inodes says. */
struct info_counts {
	struct policy_count pol[MAX_POLICIES];
	size_t npol, flagged, dirs, regs, links, other;
	size_t bad_ctx, ctx_unflagged, more_policies;
	struct policy_dirs tops;    /* each policy's top directories */
};

static void count_inodes(struct session *s, struct info_counts *k)
{
	const struct e4_enc_inode *v;
	size_t n;

	memset(k, 0, sizeof(*k));
	e4_fs_encrypted_inodes(s->fs, &v, &n, NULL);
	for (size_t i = 0; i < n; i++) {
		const struct e4_enc_inode *e = &v[i];
		size_t j;

		if (!e->flagged) {
			k->ctx_unflagged++;
			continue;
		}
		k->flagged++;
		if (E4_ISDIR(e->mode))
			k->dirs++;
		else if (E4_ISREG(e->mode))
			k->regs++;
		else if (E4_ISLNK(e->mode))
			k->links++;
		else
			k->other++;
		if (e->ctx_status != E4_OK) {
			k->bad_ctx++;
			continue;
		}
		for (j = 0; j < k->npol; j++)
			if (e4_context_same_policy(&k->pol[j].ctx, &e->ctx))
				break;
		if (j == k->npol) {
			if (k->npol == MAX_POLICIES) {
				k->more_policies++;
				continue;
			}
			k->pol[k->npol].ctx = e->ctx;
			k->pol[k->npol++].inodes = 0;
		}
		k->pol[j].inodes++;
	}
}

static const char *format_name(struct session *s, int json)
{
	if (e4_fs_name_format(s->fs) == E4_FORMAT_2015)
		return "2015";
	return json ? "6.1" : "Linux 6.1";
}

static void print_facts(struct session *s, const struct e4_fs_info *info)
{
	printf("image: %s\n", s->image);
	printf("container: %s\n", info->container);
	printf("volume: %s\n", info->volume);
	printf("block size: %u\n", info->block_size);
	printf("encrypt feature: %s\n", info->encrypt_feature ? "yes" : "no");
	printf("encrypt_2015 feature: %s\n", info->encrypt_2015_feature ? "yes" : "no");
	printf("name format: %s (%s)\n", format_name(s, 0), e4_fs_name_format_why(s->fs));
	printf("s_encryption_level: %u\n", info->encryption_level);
	printf("s_encrypt_algos:");
	for (int i = 0; i < 4; i++)
		printf(" %u", info->encrypt_algos[i]);
	printf("\ns_encrypt_pw_salt: ");
	print_hex(info->encrypt_pw_salt, sizeof(info->encrypt_pw_salt));
	printf("\n");
}

/* A policy's top directories, under its line. */
static void list_dirs(const struct info_counts *k, const struct e4_context *c)
{
	size_t more;

	if (!k->tops.walked)
		return;
	if (!policy_dirs_tracked(&k->tops, c))
		printf("    its directories are not listed (the directories of the first %d policies are)\n",
		       POLICYDIRS_MAX_POLICIES);
	else if (!policy_dirs_emit_ctx(&k->tops, c, NULL, "    ", &more) && !more)
		printf("    no directory has this policy\n");
}

static void print_counts(struct session *s, const struct info_counts *k)
{
	printf("encrypted inodes: %zu (directories %zu, regular files %zu, symlinks %zu, other %zu)\n",
	       k->flagged, k->dirs, k->regs, k->links, k->other);
	if (k->bad_ctx)
		printf("encrypted inodes without a valid context: %zu\n", k->bad_ctx);
	if (k->ctx_unflagged)
		printf("unencrypted inodes with a context: %zu\n", k->ctx_unflagged);
	printf("policies: %zu\n", k->npol);
	for (size_t j = 0; j < k->npol; j++) {
		const struct e4_context *c = &k->pol[j].ctx;
		char hex[33], how[512], flags[E4_FLAGS_NAME_MAX];

		e4_context_key_id_hex(c, hex);
		e4_policy_flags_name(c->flags, flags);
		describe(s, c, how, sizeof(how));
		printf("  policy v%u: contents %s (%u), filenames %s (%u), flags 0x%02x (%s), %s %s, inodes %zu, %s\n",
		       c->version, e4_mode_name(c->contents_mode),
		       c->contents_mode, e4_mode_name(c->filenames_mode),
		       c->filenames_mode, c->flags, flags,
		       c->version == E4_CONTEXT_V1 ? "descriptor" : "identifier",
		       hex, k->pol[j].inodes, how);
		list_dirs(k, c);
	}
	if (k->more_policies)
		printf("  (%zu inodes in further policies not shown)\n", k->more_policies);
	if (k->tops.more)
		printf("  (%zu top directories of further policies not listed)\n", k->tops.more);
}

static void json_add_u64(json_object *rec, const char *key, uint64_t v)
{
	json_object_object_add(rec, key, json_object_new_uint64(v));
}

static void emit_info_record(struct session *s, const struct e4_fs_info *info,
			     const struct info_counts *k)
{
	json_object *rec = json_record("info"), *algos = json_object_new_array();
	char *img = malloc(E4_ESCAPE_SIZE(strlen(s->image)));

	if (img)
		e4_escape((const uint8_t *)s->image, strlen(s->image), img, 0);
	json_object_object_add(rec, "image", json_object_new_string(img ? img : "?"));
	free(img);
	json_object_object_add(rec, "container", json_object_new_string(info->container));
	json_object_object_add(rec, "volume", json_object_new_string(info->volume));
	json_object_object_add(rec, "block_size", json_object_new_int(info->block_size));
	json_object_object_add(rec, "encrypt_feature", json_object_new_boolean(info->encrypt_feature));
	json_object_object_add(rec, "encrypt_2015_feature",
			       json_object_new_boolean(info->encrypt_2015_feature));
	json_object_object_add(rec, "name_format", json_object_new_string(format_name(s, 1)));
	json_object_object_add(rec, "name_format_why",
			       json_object_new_string(e4_fs_name_format_why(s->fs)));
	json_object_object_add(rec, "s_encryption_level", json_object_new_int(info->encryption_level));
	for (int i = 0; i < 4; i++)
		json_object_array_add(algos, json_object_new_int(info->encrypt_algos[i]));
	json_object_object_add(rec, "s_encrypt_algos", algos);
	json_object_object_add(rec, "s_encrypt_pw_salt",
			       json_hex(info->encrypt_pw_salt, sizeof(info->encrypt_pw_salt)));
	json_add_u64(rec, "encrypted_inodes", k->flagged);
	json_add_u64(rec, "directories", k->dirs);
	json_add_u64(rec, "regular_files", k->regs);
	json_add_u64(rec, "symlinks", k->links);
	json_add_u64(rec, "other", k->other);
	json_add_u64(rec, "without_valid_context", k->bad_ctx);
	json_add_u64(rec, "unencrypted_with_context", k->ctx_unflagged);
	json_add_u64(rec, "policies", k->npol);
	json_add_u64(rec, "inodes_in_further_policies", k->more_policies);
	json_emit(rec);
}

static void emit_policy_record(struct session *s, const struct info_counts *k,
			       const struct policy_count *pc)
{
	json_object *p = record_policy("policy", &pc->ctx, 0);

	json_add_u64(p, "inodes", pc->inodes);
	if (k->tops.walked && policy_dirs_tracked(&k->tops, &pc->ctx)) {
		json_object *d = json_object_new_array();
		size_t more;

		policy_dirs_emit_ctx(&k->tops, &pc->ctx, d, NULL, &more);
		json_object_object_add(p, "directories", d);
		json_add_u64(p, "directories_not_listed", more);
	}
	record_policy_key(p, s, &pc->ctx);
	json_emit(p);
}

/* -v: a key that opens none of the policies was probably the wrong file
 * (named, never shown). */
static void note_unused_keys(struct session *s, const struct info_counts *k,
			     struct report *r)
{
	for (size_t i = 0; i < e4_keystore_count(s->keys); i++) {
		int opens = 0;

		for (size_t j = 0; j < k->npol && !opens; j++) {
			struct e4_policy_key pk;

			e4_fs_policy_key(s->fs, &k->pol[j].ctx, &pk);
			opens = pk.open && pk.key == (long)i;
		}
		if (!opens)
			report_info(r, "key %s opens none of the policies of %s",
				    e4_keystore_key(s->keys, i)->label, s->image);
	}
}

/* The walk that finds each policy's directories meets what ls and
 * extract report as errors (a loop, an unreadable directory, a broken
 * context): info lists facts, so they are warnings here.  That a policy
 * has no key is said on its own line, not again by the walk. */
struct info_diag {
	struct report *r;
	int walking;
};

static void info_diag(void *arg, const struct e4_diag *d)
{
	struct info_diag *g = arg;
	struct e4_diag w = *d;

	if (g->walking && w.problem == E4_P_NO_KEY)
		return;
	if (g->walking && w.level == E4_DIAG_ERROR)
		w.level = E4_DIAG_WARNING;
	report_diag(g->r, &w);
}

int cmd_info(const struct options *o, struct report *r)
{
	struct session s;
	struct e4_fs_info info;
	struct info_counts *k;
	struct info_diag g = { r, 0 };
	int rc = session_open_diag(&s, o, r, 1, info_diag, &g);

	if (rc) {
		if (o->json)
			json_emit(json_summary("info", r, rc));
		return finish_stdout(rc, r);
	}
	k = malloc(sizeof(*k));
	if (!k) {
		report_error(r, "out of memory");
		session_close(&s);
		return EXIT_FATAL;
	}
	e4_fs_get_info(s.fs, &info);
	if (!o->json)
		print_facts(&s, &info);
	count_inodes(&s, k);
	/* which directories each policy covers: a walk of the tree, when
	 * the index holds an encrypted directory */
	memset(&k->tops, 0, sizeof(k->tops));
	if (k->dirs) {
		g.walking = 1;
		policy_dirs_collect(s.fs, r, &k->tops);
		g.walking = 0;
	}
	else
		k->tops.walked = 1; /* none to find */
	if (o->json) {
		emit_info_record(&s, &info, k);
		for (size_t j = 0; j < k->npol; j++)
			emit_policy_record(&s, k, &k->pol[j]);
	} else {
		print_counts(&s, k);
	}
	if (session_fscrypt(&s, o) == 0 && s.fsc->present)
		fsc_print(s.fsc, s.fs, &k->tops, o->json);
	note_unused_keys(&s, k, r);
	/* policies no key opens are facts here, not failures */
	rc = r->errors ? EXIT_SKIPPED : EXIT_DONE;
	if (o->json)
		json_emit(json_summary("info", r, rc));
	policy_dirs_free(&k->tops);
	free(k);
	session_close(&s);
	return finish_stdout(rc, r);
}
