/* e4dump keyscan: the keys of fscrypt policies in RAM captures of the
 * running system (spec §17), each confirmed by the policies of the disk
 * image (--image) the way every command opens a policy (the core's
 * e4_fs_policy_key): a v2 key by its identifier, a v1 key by its
 * descriptor and the decryption of names, a v1 key from per-file keys by
 * the nonces of two inodes and then as a v1 key.  Without an image, what
 * was found with the descriptor or identifier it names, unconfirmed.
 * Keys are never shown; --write-keys writes them to files. */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "hex.h"
#include "jsonout.h"
#include "kdf.h"
#include "keyfile.h"
#include "keyload.h"
#include "memscan.h"
#include "record.h"

#define MAX_POLICIES 256

static const char *kind_name(const struct memscan_origin *o)
{
	return o->from_file_keys ? "v1-file-key" : e4_memkey_kind_name(o->kind);
}

static void emit_capture(const struct memscan_capture *c, int json)
{
	if (json) {
		json_object *o = json_record("capture"), *notes = json_object_new_array();

		json_object_object_add(o, "path", json_name(c->path));
		json_object_object_add(o, "format", c->kind ? json_object_new_string(c->kind) : NULL);
		json_object_object_add(o, "file_size", json_object_new_uint64(c->file_size));
		json_object_object_add(o, "ranges", json_object_new_uint64(c->ranges));
		json_object_object_add(o, "bytes", json_object_new_uint64(c->bytes));
		json_object_object_add(o, "scanned", json_object_new_uint64(c->scanned));
		json_object_object_add(o, "problems", json_object_new_uint64(c->problems));
		for (size_t i = 0; i < c->n_notes; i++)
			json_object_array_add(notes, json_object_new_string(c->notes[i]));
		json_object_object_add(o, "notes", notes);
		json_object_object_add(o, "status", json_object_new_string(e4_status_str(c->status)));
		json_emit(o);
		return;
	}
	if (c->status == E4_OK && c->kind)
		printf("capture %s: %s, %zu ranges, %llu bytes scanned\n", c->path, c->kind,
		       c->ranges, (unsigned long long)c->scanned);
}

/* Write origin i's secret as DIR/NAME.key (0, with its path in path),
 * in a form --key-file reads: a v1 key as hex text, v2 states in their
 * key-file form. */
static int write_key(const struct memscan *m, size_t i, const char *dir,
		     const char *name, char *path, size_t len, struct report *r)
{
	const uint8_t *raw;
	const struct e4_hmac_states *st;
	size_t n, tl = 0;
	char text[E4_KEYFILE_STATES_TEXT_MAX > 2 * E4_MAX_KEY_SIZE + 2 ?
		  E4_KEYFILE_STATES_TEXT_MAX : 2 * E4_MAX_KEY_SIZE + 2];
	int rc = -1;

	memscan_secret(m, i, &raw, &n, &st);
	if (st) {
		tl = e4_keyfile_format_states(st, text, sizeof(text));
		if (tl >= sizeof(text))
			tl = 0;
	} else if (raw && n && n <= E4_MAX_KEY_SIZE) {
		e4_hex_encode(raw, n, text);
		text[2 * n] = '\n';
		tl = 2 * n + 1;
	}
	if (tl)
		rc = keyload_write_key(dir, name, text, tl, "--write-keys", r);
	e4_wipe(text, sizeof(text));
	if (!rc)
		snprintf(path, len, "%s/%s.key", dir, name);
	return rc;
}

static size_t origin_index(const struct memscan *m, const struct memscan_origin *o)
{
	for (size_t i = 0; i < memscan_origins(m); i++)
		if (memscan_origin(m, i) == o)
			return i;
	return (size_t)-1;
}

static void emit_key(const struct memscan *m, const struct memscan_origin *o,
		     unsigned int version, const char *key_hex, int confirmed,
		     const char *evidence, const char *key_file, int json)
{
	const char *cap = m->cap[o->capture].path;

	if (json) {
		json_object *j = json_record("memory_key");

		json_object_object_add(j, "kind", json_object_new_string(kind_name(o)));
		json_object_object_add(j, "version", json_object_new_int((int)version));
		json_object_object_add(j, "key", json_object_new_string(key_hex));
		json_object_object_add(j, "capture", json_name(cap));
		json_object_object_add(j, "offset", json_object_new_uint64(o->file_off));
		json_object_object_add(j, "phys", json_object_new_uint64(o->phys));
		json_object_object_add(j, "copies", json_object_new_uint64(o->copies));
		if (o->from_file_keys)
			json_object_object_add(j, "inode", json_object_new_uint64(o->ino));
		if (version == 1 && o->key_len)
			json_object_object_add(j, "bytes", json_object_new_uint64(o->key_len));
		json_object_object_add(j, "confirmed", json_object_new_boolean(confirmed));
		json_object_object_add(j, "evidence", json_object_new_string(evidence));
		json_object_object_add(j, "key_file", key_file ? json_name(key_file) : NULL);
		json_emit(j);
		return;
	}
	printf("  %s at %s+0x%llx (phys 0x%llx", kind_name(o), cap,
	       (unsigned long long)o->file_off, (unsigned long long)o->phys);
	if (o->from_file_keys)
		printf(", inode %u's nonce", o->ino);
	printf("): v%u %s %s, %s: %s%s%s\n", version,
	       version == 1 ? "descriptor" : "identifier", key_hex,
	       confirmed ? "confirmed" : "not confirmed", evidence,
	       key_file ? ", written to " : "", key_file ? key_file : "");
}

/* Without an image: every v1 key and v2 states found, with the
 * descriptor (e4crypt's rule) or identifier each names. */
static int report_unconfirmed(struct memscan *m, const struct options *o, struct report *r)
{
	struct e4_keystore *ks = e4_keystore_new();
	size_t shown = 0, unnamed = 0;

	if (!ks || memscan_add_keys(m, NULL, ks, r)) {
		e4_keystore_free(ks);
		return -1;
	}
	if (!o->json)
		printf("without an image, nothing is confirmed:\n");
	for (size_t i = 0; i < memscan_origins(m); i++) {
		const struct memscan_origin *or = memscan_origin(m, i);
		char hex[33], path[4200];
		int v2 = or->kind == E4_MEMKEY_HKDF;
		const char *file = NULL, *evidence;

		if (v2) {
			e4_hex_encode(or->id, 16, hex);
			evidence = "identifier computed from the states";
		} else if (or->ks_index < 0) {
			continue; /* AES schedules, descriptions: no master key */
		} else if (or->named) {
			e4_hex_encode(or->descriptor, 8, hex);
			evidence = "descriptor its fscrypt_master_key's mk_spec names";
		} else if (memscan_described(m, or->id)) {
			e4_hex_encode(or->id, 8, hex);
			evidence = "descriptor by e4crypt's rule, which a logon key's description in the capture names";
		} else {
			unnamed++; /* a structural match alone proves nothing */
			continue;
		}
		if (o->write_keys && !write_key(m, i, o->write_keys, hex, path, sizeof(path), r))
			file = path;
		emit_key(m, or, v2 ? 2 : 1, hex, 0, evidence, file, o->json);
		shown++;
	}
	if (unnamed)
		report_info(r, "%zu v1 key candidates that nothing in the capture names are not shown (give --image to try them)",
			    unnamed);
	if (!shown && !o->json)
		printf("  no key found\n");
	e4_keystore_free(ks);
	return 0;
}

struct policy_set {
	struct e4_context pol[MAX_POLICIES];
	size_t n, more;
};

static void collect_policies(struct e4_fs *fs, struct policy_set *ps)
{
	const struct e4_enc_inode *v;
	size_t n;

	ps->n = ps->more = 0;
	if (e4_fs_encrypted_inodes(fs, &v, &n, NULL) != E4_OK)
		return;
	for (size_t i = 0; i < n; i++) {
		size_t j;

		if (v[i].ctx_status != E4_OK)
			continue;
		for (j = 0; j < ps->n; j++)
			if (e4_context_same_policy(&ps->pol[j], &v[i].ctx))
				break;
		if (j < ps->n)
			continue;
		if (ps->n < MAX_POLICIES)
			ps->pol[ps->n++] = v[i].ctx;
		else
			ps->more++;
	}
}

static void emit_policy(const struct e4_context *ctx, const char *key_hex,
			const struct memscan_origin *found, const char *how, int json)
{
	if (json) {
		json_object *j = json_record("memory_policy"), *kinds = json_object_new_array();

		json_object_object_add(j, "version", json_object_new_int(ctx->version));
		json_object_object_add(j, "key", json_object_new_string(key_hex));
		json_object_object_add(j, "policy", record_policy(NULL, ctx, 0));
		json_object_object_add(j, "found", json_object_new_boolean(found != NULL));
		for (unsigned int k = 0; found && k <= E4_MEMKEY_AES_XTS; k++)
			if (found->kinds & (1u << k))
				json_object_array_add(kinds, json_object_new_string(
					e4_memkey_kind_name((enum e4_memkey_kind)k)));
		if (found && (found->kinds & MEMSCAN_FILE_KEYS))
			json_object_array_add(kinds, json_object_new_string("v1-file-key"));
		json_object_object_add(j, "kinds", kinds);
		json_object_object_add(j, "how", json_object_new_string(how));
		json_emit(j);
		return;
	}
	printf("policy v%u %s %s: %s (%s)\n", ctx->version,
	       ctx->version == E4_CONTEXT_V1 ? "descriptor" : "identifier", key_hex,
	       found ? "found" : "not found", how);
}

/* One image: its policies, each with the key from memory that opens it. */
static int scan_image(struct memscan *m, const struct options *o, const char *image,
		      struct report *r, size_t *missing)
{
	struct options io = *o;
	const char *args[1] = { image };
	struct session s;
	struct policy_set *ps = calloc(1, sizeof(*ps));
	int rc;

	if (!ps) {
		report_error(r, "out of memory");
		return EXIT_FATAL;
	}
	io.args = args;
	io.n_args = 1;
	io.n_memory = 0;
	rc = session_open(&s, &io, r, 1);
	if (rc) {
		free(ps);
		return rc;
	}
	if (memscan_add_keys(m, s.fs, s.keys, r)) {
		session_close(&s);
		free(ps);
		return EXIT_FATAL;
	}
	collect_policies(s.fs, ps);
	if (!o->json)
		printf("image %s: %zu policies\n", image, ps->n);
	for (size_t j = 0; j < ps->n; j++) {
		const struct e4_context *ctx = &ps->pol[j];
		struct e4_policy_key pk;
		const struct memscan_origin *found = NULL;
		const char *how;
		char hex[33], path[4200];
		const char *file = NULL;

		e4_context_key_id_hex(ctx, hex);
		e4_fs_policy_key(s.fs, ctx, &pk);
		how = pk.how;
		if (pk.open)
			found = memscan_origin_of_key(m, pk.key);
		if (!found)
			(*missing)++;
		emit_policy(ctx, hex, found, found ? how : pk.how, o->json);
		if (!found)
			continue;
		if (o->write_keys &&
		    !write_key(m, origin_index(m, found), o->write_keys, hex, path, sizeof(path), r))
			file = path;
		emit_key(m, found, ctx->version, hex, 1, how, file, o->json);
	}
	if (ps->more) {
		report_warning(r, "%s: %zu more policies than %d not listed", image, ps->more,
			       MAX_POLICIES);
		*missing += ps->more;
	}
	session_close(&s);
	free(ps);
	return 0;
}

int cmd_keyscan(const struct options *o, struct report *r)
{
	struct memscan m;
	size_t missing = 0;
	int rc = EXIT_DONE;

	if (o->write_keys)
		report_warning(r, "--write-keys %s: the files written are secret keys", o->write_keys);
	if (memscan_run(&m, o->args, o->n_args, session_scan_threads(o), r)) {
		memscan_free(&m);
		return json_finish(o->json, "keyscan", r, EXIT_FATAL);
	}
	for (size_t i = 0; i < m.n_cap; i++)
		emit_capture(&m.cap[i], o->json);
	if (!o->n_images) {
		if (report_unconfirmed(&m, o, r))
			rc = EXIT_FATAL;
	}
	for (size_t i = 0; i < o->n_images && rc != EXIT_FATAL; i++) {
		int st = scan_image(&m, o, o->images[i], r, &missing);

		if (st)
			rc = st;
	}
	memscan_free(&m);
	if (rc == EXIT_DONE && (missing || r->errors))
		rc = EXIT_SKIPPED;
	return json_finish(o->json, "keyscan", r, rc);
}
