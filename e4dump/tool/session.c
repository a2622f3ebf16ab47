#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jsonout.h"
#include "kdf.h"
#include "keyload.h"
#include "session.h"
#include "memscan.h"

static void wipe_secrets(struct secret *sec, size_t n)
{
	for (size_t i = 0; sec && i < n; i++)
		keyload_secret_wipe(&sec[i]);
	free(sec);
}

int session_fscrypt(struct session *s, const struct options *o)
{
	struct e4_fs_options fo;

	if (s->fsc)
		return 0;
	if (o->fscrypt_root && !s->fscrypt_root) {
		memset(&fo, 0, sizeof(fo));
		fo.listing = 1;
		fo.diag = report_diag;
		fo.diag_arg = s->report;
		if (e4_fs_open(&s->fscrypt_root, o->fscrypt_root, &fo) != E4_OK) {
			report_error(s->report, "--fscrypt-root %s cannot be opened", o->fscrypt_root);
			return EXIT_FATAL;
		}
	}
	s->fsc = fsc_load(s->fs, s->fscrypt_root, s->report);
	if (!s->fsc) {
		report_error(s->report, "out of memory");
		return EXIT_FATAL;
	}
	return 0;
}

int session_open(struct session *s, const struct options *o, struct report *r,
		 int listing)
{
	return session_open_diag(s, o, r, listing, report_diag, r);
}

/* The policy of the image that key i of ks names by hash (its e4crypt
 * descriptor as a v1 descriptor, its identifier as a v2 one): its
 * descriptor or identifier as hex into hex; 0 when none does. */
static int names_a_policy(struct session *s, size_t i, char hex[33])
{
	const struct e4_enc_inode *v;
	size_t n;

	if (e4_fs_encrypted_inodes(s->fs, &v, &n, NULL) != E4_OK)
		return 0;
	for (size_t j = 0; j < n; j++)
		if (v[j].flagged && v[j].ctx_status == E4_OK &&
		    e4_key_names(e4_keystore_key(s->keys, i), &v[j].ctx)) {
			e4_context_key_id_hex(&v[j].ctx, hex);
			return 1;
		}
	return 0;
}

/* A passphrase is tried as fscrypt protectors' and as e4crypt's: say
 * what it opened; an error only when it opened nothing (key: its e4crypt
 * key's index in the store, or -1 when none was derived). */
static void passphrase_outcome(struct session *s, const struct secret *sec,
			       size_t opened, long key, struct report *r)
{
	char hex[33];
	int e4 = key >= 0 && names_a_policy(s, (size_t)key, hex);

	if (opened && e4)
		report_info(r, "passphrase file %s: opened %zu fscrypt protector%s, and the key e4crypt derives from it names policy %s",
			    sec->path, opened, opened == 1 ? "" : "s", hex);
	else if (opened)
		report_info(r, "passphrase file %s: opened %zu fscrypt protector%s",
			    sec->path, opened, opened == 1 ? "" : "s");
	else if (e4)
		report_note(r, "passphrase file %s opens none of the image's fscrypt passphrase protectors; the key e4crypt derives from it names policy %s",
			    sec->path, hex);
	else
		report_error(r, "passphrase file %s opens none of the image's fscrypt passphrase protectors%s",
			     sec->path, key >= 0 ?
			     ", and the key e4crypt derives from it names no policy of the image" :
			     " (and no e4crypt key was derived from it)");
}

/* The keys --memory captures hold, into s->keys (before any policy is
 * looked up): the core then opens a policy only with a key it proves. */
static int session_memory_keys(struct session *s, const struct options *o)
{
	struct memscan m;
	size_t before = e4_keystore_count(s->keys);
	int rc;

	rc = memscan_run(&m, o->memory, o->n_memory, session_scan_threads(o), s->report);
	if (!rc)
		rc = memscan_add_keys(&m, s->fs, s->keys, s->report);
	if (!rc)
		report_info(s->report, "--memory: %zu candidate keys from %zu captures",
			    e4_keystore_count(s->keys) - before, o->n_memory);
	memscan_free(&m);
	return rc;
}

int session_open_diag(struct session *s, const struct options *o,
		      struct report *r, int listing, e4_diag_fn diag,
		      void *diag_arg)
{
	struct e4_fs_options fo;
	uint8_t salt[256];
	long salt_len = 0;
	struct secret *sec = NULL;
	size_t n_sec = 0, *opened = NULL;
	long *e4key = NULL;
	int derive = 1;

	memset(s, 0, sizeof(*s));
	s->report = r;
	s->image = o->args[0];
	s->keys = e4_keystore_new();
	if (!s->keys) {
		report_error(r, "out of memory");
		return EXIT_FATAL;
	}
	if (o->salt_hex) {
		salt_len = keyload_salt(o->salt_hex, salt, r);
		if (salt_len < 0)
			goto fail;
		if (!o->n_pass_files)
			report_warning(r, "--salt is only used with --passphrase-file");
	}
	for (size_t i = 0; i < o->n_key_files; i++)
		if (keyload_file(s->keys, o->key_files[i], r))
			goto fail;
	memset(&fo, 0, sizeof(fo));
	fo.format = o->format;
	fo.dummy_key_2015 = o->dummy_key;
	fo.keys = s->keys;
	fo.listing = listing;
	fo.diag = diag;
	fo.diag_arg = diag_arg;
	fo.max_dir_entries = o->max_entries;
	fo.max_depth = (unsigned int)o->max_depth;
	fo.volume.partition = (unsigned int)o->partition;
	fo.volume.by_offset = o->by_offset;
	fo.volume.offset = o->offset;
	if (e4_fs_open(&s->fs, s->image, &fo) != E4_OK)
		goto fail;
	s->secrets = o->n_key_files || o->n_pass_files || o->n_protector_key_files ||
		     o->n_memory;
	if (o->n_memory && session_memory_keys(s, o))
		goto fail;
	if (o->n_pass_files || o->n_protector_key_files || o->fscrypt_root) {
		sec = calloc(o->n_pass_files + 1, sizeof(*sec));
		opened = calloc(o->n_pass_files + 1, sizeof(*opened));
		e4key = calloc(o->n_pass_files + 1, sizeof(*e4key));
		if (!sec || !opened || !e4key) {
			report_error(r, "out of memory");
			goto fail;
		}
		for (size_t i = 0; i < o->n_pass_files; i++, n_sec++)
			if (keyload_read_passphrase(o->pass_files[i], &sec[i], r))
				goto fail;
		if (session_fscrypt(s, o) ||
		    fsc_unlock(s->fsc, s->keys, o, sec, n_sec, opened, r) < 0)
			goto fail;
	}
	if (o->n_pass_files) {
		struct e4_fs_info info;

		e4_fs_get_info(s->fs, &info);
		if (!o->salt_hex) {
			memcpy(salt, info.encrypt_pw_salt, 16);
			salt_len = 16;
			if (!memcmp(salt, (uint8_t[16]){ 0 }, 16)) {
				if (!s->fsc || !s->fsc->present) {
					report_error(r, "%s: s_encrypt_pw_salt is zero: give --salt SALT",
						     s->image);
					goto fail;
				}
				/* fscrypt's passphrases do not use it */
				report_info(r, "%s: s_encrypt_pw_salt is zero: no e4crypt key derived (give --salt SALT for one)",
					    s->image);
				derive = 0;
			}
		}
		for (size_t i = 0; i < o->n_pass_files; i++) {
			e4key[i] = -1;
			if (!derive)
				continue;
			if (keyload_e4crypt(s->keys, &sec[i], salt, (size_t)salt_len, r))
				goto fail;
			e4key[i] = (long)e4_keystore_count(s->keys) - 1;
		}
		/* with the fscrypt tool's passphrase protectors, a passphrase
		 * that opens nothing either way is an error */
		if (s->fsc && fsc_passphrase_protectors(s->fsc))
			for (size_t i = 0; i < n_sec; i++)
				passphrase_outcome(s, &sec[i], opened[i], e4key[i], r);
	}
	e4_wipe(salt, sizeof(salt));
	wipe_secrets(sec, n_sec);
	free(opened);
	free(e4key);
	return 0;
fail:
	e4_wipe(salt, sizeof(salt));
	wipe_secrets(sec, n_sec);
	free(opened);
	free(e4key);
	session_close(s);
	return EXIT_FATAL;
}

void session_close(struct session *s)
{
	e4_fs_close(s->fs);
	e4_fs_close(s->fscrypt_root);
	fsc_free(s->fsc);
	e4_keystore_free(s->keys);
	s->fscrypt_root = NULL;
	s->fsc = NULL;
	s->fs = NULL;
	s->keys = NULL;
}

int session_status(const struct session *s)
{
	/* keys were given for a reason: a policy none of them opens means
	 * something was not decrypted (without keys, no-key names are the
	 * listing asked for) */
	if (s->report->errors ||
	    (s->report->locked && (e4_keystore_count(s->keys) || s->secrets)))
		return EXIT_SKIPPED;
	return EXIT_DONE;
}

int finish_stdout(int rc, struct report *r)
{
	if (fflush(stdout) || ferror(stdout)) {
		report_error(r, "writing to standard output failed");
		return EXIT_FATAL;
	}
	return rc;
}

unsigned int session_extra_threads(const struct session *s,
				   const struct options *o, unsigned int max)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long n = o->threads ? o->threads - 1 :
			  cpus > 1 ? (unsigned long)cpus - 1 : 0;

	if (!e4_fs_concurrent_reads(s->fs))
		return 0;
	return n < max ? (unsigned int)n : max;
}

unsigned int session_scan_threads(const struct options *o)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	return o->threads ? (unsigned int)(o->threads < E4_SCAN_MAX_THREADS ? o->threads :
					   E4_SCAN_MAX_THREADS) :
	       cpus > 1 ? (unsigned int)(cpus < E4_SCAN_MAX_THREADS ? cpus : E4_SCAN_MAX_THREADS) : 1;
}

int json_finish(int json, const char *command, struct report *r, int rc)
{
	if (json)
		json_emit(json_summary(command, r, rc));
	return finish_stdout(rc, r);
}
