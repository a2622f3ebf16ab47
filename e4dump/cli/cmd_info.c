/* e4dump info: the filesystem's encryption facts and its policies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "escape.h"
#include "inode.h"
#include "jsonout.h"
#include "modes.h"
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

int cmd_info(const struct options *o, struct report *r)
{
	struct session s;
	struct e4_fs_info info;
	const struct e4_enc_inode *v;
	struct policy_count pol[MAX_POLICIES];
	size_t n, npol = 0, flagged = 0, dirs = 0, regs = 0, links = 0, other = 0;
	size_t bad_ctx = 0, ctx_unflagged = 0, more_policies = 0;
	int rc = session_open(&s, o, r, 1);

	if (rc) {
		if (o->json)
			json_emit(json_summary("info", r, rc));
		return finish_stdout(rc, r);
	}
	e4_fs_get_info(s.fs, &info);
	if (!o->json) {
		printf("image: %s\n", s.image);
		printf("container: %s\n", info.container);
		printf("volume: %s\n", info.volume);
		printf("block size: %u\n", info.block_size);
		printf("encrypt feature: %s\n", info.encrypt_feature ? "yes" : "no");
		printf("encrypt_2015 feature: %s\n", info.encrypt_2015_feature ? "yes" : "no");
		printf("name format: %s (%s)\n",
		       e4_fs_name_format(s.fs) == E4_FORMAT_2015 ? "2015" : "Linux 6.1",
		       e4_fs_name_format_why(s.fs));
		printf("s_encryption_level: %u\n", info.encryption_level);
		printf("s_encrypt_algos:");
		for (int i = 0; i < 4; i++)
			printf(" %u", info.encrypt_algos[i]);
		printf("\ns_encrypt_pw_salt: ");
		print_hex(info.encrypt_pw_salt, sizeof(info.encrypt_pw_salt));
		printf("\n");
	}
	e4_fs_encrypted_inodes(s.fs, &v, &n, NULL);
	for (size_t i = 0; i < n; i++) {
		const struct e4_enc_inode *e = &v[i];
		size_t j;

		if (!e->flagged) {
			ctx_unflagged++;
			continue;
		}
		flagged++;
		if (E4_ISDIR(e->mode))
			dirs++;
		else if (E4_ISREG(e->mode))
			regs++;
		else if (E4_ISLNK(e->mode))
			links++;
		else
			other++;
		if (e->ctx_status != E4_OK) {
			bad_ctx++;
			continue;
		}
		for (j = 0; j < npol; j++)
			if (e4_context_same_policy(&pol[j].ctx, &e->ctx))
				break;
		if (j == npol) {
			if (npol == MAX_POLICIES) {
				more_policies++;
				continue;
			}
			pol[npol].ctx = e->ctx;
			pol[npol++].inodes = 0;
		}
		pol[j].inodes++;
	}
	if (o->json) {
		json_object *rec = json_record("info"), *algos = json_object_new_array();
		char *img = malloc(E4_ESCAPE_SIZE(strlen(s.image)));

		if (img)
			e4_escape((const uint8_t *)s.image, strlen(s.image), img, 0);
		json_object_object_add(rec, "image", json_object_new_string(img ? img : "?"));
		free(img);
		json_object_object_add(rec, "container", json_object_new_string(info.container));
		json_object_object_add(rec, "volume", json_object_new_string(info.volume));
		json_object_object_add(rec, "block_size", json_object_new_int(info.block_size));
		json_object_object_add(rec, "encrypt_feature", json_object_new_boolean(info.encrypt_feature));
		json_object_object_add(rec, "encrypt_2015_feature",
				       json_object_new_boolean(info.encrypt_2015_feature));
		json_object_object_add(rec, "name_format", json_object_new_string(
			e4_fs_name_format(s.fs) == E4_FORMAT_2015 ? "2015" : "6.1"));
		json_object_object_add(rec, "name_format_why",
				       json_object_new_string(e4_fs_name_format_why(s.fs)));
		json_object_object_add(rec, "s_encryption_level", json_object_new_int(info.encryption_level));
		for (int i = 0; i < 4; i++)
			json_object_array_add(algos, json_object_new_int(info.encrypt_algos[i]));
		json_object_object_add(rec, "s_encrypt_algos", algos);
		json_object_object_add(rec, "s_encrypt_pw_salt",
				       json_hex(info.encrypt_pw_salt, sizeof(info.encrypt_pw_salt)));
		json_object_object_add(rec, "encrypted_inodes", json_object_new_uint64(flagged));
		json_object_object_add(rec, "directories", json_object_new_uint64(dirs));
		json_object_object_add(rec, "regular_files", json_object_new_uint64(regs));
		json_object_object_add(rec, "symlinks", json_object_new_uint64(links));
		json_object_object_add(rec, "other", json_object_new_uint64(other));
		json_object_object_add(rec, "without_valid_context", json_object_new_uint64(bad_ctx));
		json_object_object_add(rec, "unencrypted_with_context", json_object_new_uint64(ctx_unflagged));
		json_object_object_add(rec, "policies", json_object_new_uint64(npol));
		json_object_object_add(rec, "inodes_in_further_policies",
				       json_object_new_uint64(more_policies));
		json_emit(rec);
		for (size_t j = 0; j < npol; j++) {
			const struct e4_context *c = &pol[j].ctx;
			json_object *p = json_record("policy");
			struct e4_policy_key pk;
			char hex[33], flags[E4_FLAGS_NAME_MAX], fl[8];

			e4_context_key_id_hex(c, hex);
			e4_policy_flags_name(c->flags, flags);
			snprintf(fl, sizeof(fl), "0x%02x", c->flags);
			e4_fs_policy_key(s.fs, c, &pk);
			json_object_object_add(p, "version", json_object_new_int(c->version == E4_CONTEXT_V1 ? 1 : 2));
			json_object_object_add(p, "contents_mode", json_object_new_int(c->contents_mode));
			json_object_object_add(p, "contents", json_object_new_string(e4_mode_name(c->contents_mode)));
			json_object_object_add(p, "filenames_mode", json_object_new_int(c->filenames_mode));
			json_object_object_add(p, "filenames", json_object_new_string(e4_mode_name(c->filenames_mode)));
			json_object_object_add(p, "policy_flags", json_object_new_string(fl));
			json_object_object_add(p, "policy_flag_names", json_object_new_string(flags));
			json_object_object_add(p, c->version == E4_CONTEXT_V1 ? "descriptor" : "identifier",
					       json_object_new_string(hex));
			json_object_object_add(p, "inodes", json_object_new_uint64(pol[j].inodes));
			json_object_object_add(p, "key", pk.open ? json_object_new_string(pk.key >= 0 ?
				e4_keystore_key(s.keys, (size_t)pk.key)->label : "dummy key") : NULL);
			json_object_object_add(p, "key_how", json_object_new_string(
				pk.open || e4_keystore_count(s.keys) ? pk.how : "no key given"));
			json_emit(p);
		}
	} else {
	printf("encrypted inodes: %zu (directories %zu, regular files %zu, symlinks %zu, other %zu)\n",
	       flagged, dirs, regs, links, other);
	if (bad_ctx)
		printf("encrypted inodes without a valid context: %zu\n", bad_ctx);
	if (ctx_unflagged)
		printf("unencrypted inodes with a context: %zu\n", ctx_unflagged);
	printf("policies: %zu\n", npol);
	for (size_t j = 0; j < npol; j++) {
		const struct e4_context *c = &pol[j].ctx;
		char hex[33], how[512], flags[E4_FLAGS_NAME_MAX];

		e4_context_key_id_hex(c, hex);
		e4_policy_flags_name(c->flags, flags);
		describe(&s, c, how, sizeof(how));
		printf("  policy v%u: contents %s (%u), filenames %s (%u), flags 0x%02x (%s), %s %s, inodes %zu, %s\n",
		       c->version, e4_mode_name(c->contents_mode),
		       c->contents_mode, e4_mode_name(c->filenames_mode),
		       c->filenames_mode, c->flags, flags,
		       c->version == E4_CONTEXT_V1 ? "descriptor" : "identifier",
		       hex, pol[j].inodes, how);
	}
	if (more_policies)
		printf("  (%zu inodes in further policies not shown)\n", more_policies);
	}
	/* -v: a key that opens none of the policies was probably the wrong
	 * file (named, never shown) */
	for (size_t k = 0; k < e4_keystore_count(s.keys); k++) {
		int opens = 0;

		for (size_t j = 0; j < npol && !opens; j++) {
			struct e4_policy_key pk;

			e4_fs_policy_key(s.fs, &pol[j].ctx, &pk);
			opens = pk.open && pk.key == (long)k;
		}
		if (!opens)
			report_info(r, "key %s opens none of the policies of %s",
				    e4_keystore_key(s.keys, k)->label, s.image);
	}
	/* policies no key opens are facts here, not failures */
	rc = r->errors ? EXIT_SKIPPED : EXIT_DONE;
	if (o->json)
		json_emit(json_summary("info", r, rc));
	session_close(&s);
	return finish_stdout(rc, r);
}
