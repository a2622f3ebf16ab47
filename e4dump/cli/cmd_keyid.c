/* e4dump keyid: what names each given key (its v1 descriptor by e4crypt's
 * convention, its v2 identifier) and, with an image, which of its
 * policies each opens.  Keys are named by their files, never shown. */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "inode.h"
#include "kdf.h"
#include "jsonout.h"
#include "keyload.h"
#include "modes.h"
#include "record.h"
#include "session.h"

#define MAX_POLICIES 256

static void hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}

/* The record of a key: its file's label, its form ("raw", or
 * "hkdf-states": the HMAC states of a v2 key, which have no size and no
 * v1 descriptor: null), size, v1 descriptor and v2 identifier; with an
 * image, "opens": the policies it opens (each with its inode count);
 * never the key. */
static json_object *key_record(const struct e4_master_key *k)
{
	json_object *o = json_record("key");

	json_object_object_add(o, "key", json_object_new_string(k->label));
	json_object_object_add(o, "form", json_object_new_string(k->is_states ? "hkdf-states" : "raw"));
	json_object_object_add(o, "bytes", k->is_states ? NULL : json_object_new_uint64(k->len));
	json_object_object_add(o, "descriptor", k->is_states ? NULL :
			       json_hex(k->e4crypt_desc, sizeof(k->e4crypt_desc)));
	json_object_object_add(o, "identifier", json_hex(k->v2_id, sizeof(k->v2_id)));
	return o;
}

static void print_key(const struct options *o, const struct e4_master_key *k)
{
	if (o->json) {
		json_emit(key_record(k));
		return;
	}
	if (k->is_states) {
		printf("%s: HKDF states of a v2 key, v1 descriptor not applicable (no raw key)",
		       k->label);
	} else {
		printf("%s: %zu bytes, v1 descriptor ", k->label, k->len);
		hex(k->e4crypt_desc, sizeof(k->e4crypt_desc));
	}
	printf(", v2 identifier ");
	hex(k->v2_id, sizeof(k->v2_id));
	printf("\n");
}

/* Without an image: the keys alone (a passphrase needs --salt). */
static int keys_alone(const struct options *o, struct report *r)
{
	struct e4_keystore *ks = e4_keystore_new();
	uint8_t salt[256];
	long salt_len = 0;
	int rc = EXIT_FATAL;

	if (!ks) {
		report_error(r, "out of memory");
		return EXIT_FATAL;
	}
	if (o->n_pass_files && !o->salt_hex) {
		report_error(r, "keyid: --passphrase-file without IMAGE needs --salt SALT");
		goto out;
	}
	if (o->salt_hex && (salt_len = keyload_salt(o->salt_hex, salt, r)) < 0)
		goto out;
	for (size_t i = 0; i < o->n_key_files; i++)
		if (keyload_file(ks, o->key_files[i], r))
			goto out;
	for (size_t i = 0; i < o->n_pass_files; i++)
		if (keyload_passphrase(ks, o->pass_files[i], salt, (size_t)salt_len, r))
			goto out;
	for (size_t i = 0; i < e4_keystore_count(ks); i++)
		print_key(o, e4_keystore_key(ks, i));
	rc = EXIT_DONE;
out:
	if (o->json)
		json_emit(json_summary("keyid", r, rc));
	rc = finish_stdout(rc, r);
	e4_wipe(salt, sizeof(salt));
	e4_keystore_free(ks);
	return rc;
}

int cmd_keyid(const struct options *o, struct report *r)
{
	struct session s;
	const struct e4_enc_inode *v;
	struct e4_context pol[MAX_POLICIES];
	size_t n, npol = 0, count[MAX_POLICIES] = { 0 };
	int rc;

	if (!o->n_key_files && !o->n_pass_files && !o->n_protector_key_files) {
		report_error(r, "keyid: give --key-file, --passphrase-file or --protector-key-file");
		return json_finish(o->json, "keyid", r, EXIT_FATAL);
	}
	if (o->n_args < 1 && (o->n_protector_key_files || o->fscrypt_root ||
			      o->write_policy_keys)) {
		report_error(r, "keyid: --protector-key-file, --fscrypt-root and --write-policy-keys need IMAGE");
		return json_finish(o->json, "keyid", r, EXIT_FATAL);
	}
	if (o->n_args < 1)
		return keys_alone(o, r);
	rc = session_open(&s, o, r, 1);
	if (rc)
		return json_finish(o->json, "keyid", r, rc);
	/* the policies of the image, once each */
	if (e4_fs_encrypted_inodes(s.fs, &v, &n, NULL) == E4_OK)
		for (size_t i = 0; i < n; i++) {
			size_t j;

			if (!v[i].flagged || v[i].ctx_status != E4_OK)
				continue;
			for (j = 0; j < npol; j++)
				if (e4_context_same_policy(&pol[j], &v[i].ctx))
					break;
			if (j == npol && npol < MAX_POLICIES)
				pol[npol++] = v[i].ctx;
			if (j < npol)
				count[j]++;
		}
	for (size_t k = 0; k < e4_keystore_count(s.keys); k++) {
		json_object *rec = o->json ? key_record(e4_keystore_key(s.keys, k)) : NULL;
		json_object *list = o->json ? json_object_new_array() : NULL;
		int opens = 0;

		if (!o->json)
			print_key(o, e4_keystore_key(s.keys, k));
		for (size_t j = 0; j < npol; j++) {
			struct e4_policy_key pk;
			char id[33], flags[E4_FLAGS_NAME_MAX];

			e4_fs_policy_key(s.fs, &pol[j], &pk);
			if (!pk.open || pk.key != (long)k)
				continue;
			opens = 1;
			if (o->json) {
				json_object *p = record_policy(NULL, &pol[j], 0);

				json_object_object_add(p, "inodes", json_object_new_uint64(count[j]));
				record_policy_key(p, &s, &pol[j]);
				json_object_array_add(list, p);
				continue;
			}
			e4_context_key_id_hex(&pol[j], id);
			e4_policy_flags_name(pol[j].flags, flags);
			printf("  opens policy v%u %s %s: contents %s, filenames %s, flags %s; %zu inodes (%s)\n",
			       pol[j].version,
			       pol[j].version == E4_CONTEXT_V1 ? "descriptor" : "identifier",
			       id, e4_mode_name(pol[j].contents_mode),
			       e4_mode_name(pol[j].filenames_mode), flags, count[j], pk.how);
		}
		if (o->json) {
			json_object_object_add(rec, "opens", list);
			json_emit(rec);
		} else if (!opens)
			printf("  opens nothing in %s\n", s.image);
	}
	if (session_fscrypt(&s, o) == 0 && s.fsc->present)
		fsc_print(s.fsc, s.fs, NULL, o->json);
	/* a policy no key opens is what this reports, not a failure */
	rc = r->errors ? EXIT_SKIPPED : EXIT_DONE;
	session_close(&s);
	return json_finish(o->json, "keyid", r, rc);
}
