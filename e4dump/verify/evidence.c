/* verify --evidence: the whole media of the image read through its
 * container (the same guarded reader as every command) and hashed, then
 * set against the hashes the acquisition stored (an E01's MD5 and SHA-1,
 * libewf's "MD5" and "SHA1" hash values), as ewfverify does.  A stored
 * hash that differs, and bytes the container cannot give (an E01 chunk
 * whose checksum fails: source_ewf.c), are findings (evidence.hash); they
 * are hashed as zeros (ewfverify hashes what libewf decoded of a damaged
 * chunk: the two computed hashes then differ, each from the stored one). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <openssl/evp.h>
#include "container.h"
#include "verify.h"

#define READ_SIZE (1u << 20)
#define PIECE 512u          /* what a failed read is retried in */
#define RANGES_SHOWN 16     /* unreadable ranges named one by one */

struct hashing {
	EVP_MD_CTX *md5, *sha1;
	uint64_t bad_bytes, bad_ranges;
	uint64_t run_start, run_len;   /* the unreadable run being gathered */
};

static void hash(struct hashing *h, const void *p, size_t n)
{
	EVP_DigestUpdate(h->md5, p, n);
	EVP_DigestUpdate(h->sha1, p, n);
}

static void end_run(struct verify *v, struct hashing *h)
{
	if (!h->run_len)
		return;
	if (h->bad_ranges++ < RANGES_SHOWN)
		vfind(v, CHECK_EVIDENCE_HASH, 0, NULL,
		      "the media cannot be read at bytes %llu to %llu (%llu bytes; in an E01: a chunk whose checksum fails): hashed as zeros",
		      (unsigned long long)h->run_start,
		      (unsigned long long)(h->run_start + h->run_len - 1),
		      (unsigned long long)h->run_len);
	h->bad_bytes += h->run_len;
	h->run_len = 0;
}

/* Bytes [off, off + n) of s into the hashes; what cannot be read, piece
 * by piece, as zeros. */
static void hash_range(struct verify *v, struct hashing *h, struct e4_source *s,
		       uint8_t *buf, uint64_t off, size_t n)
{
	if (e4_source_read(s, off, buf, n) == E4_OK) {
		end_run(v, h);
		hash(h, buf, n);
		return;
	}
	for (size_t at = 0; at < n; at += PIECE) {
		size_t len = n - at < PIECE ? n - at : PIECE;

		if (e4_source_read(s, off + at, buf, len) == E4_OK) {
			end_run(v, h);
		} else {
			memset(buf, 0, len);
			if (!h->run_len)
				h->run_start = off + at;
			h->run_len += len;
		}
		hash(h, buf, len);
	}
}

static const char *stored(const struct e4_source *s, const char *key)
{
	for (size_t i = 0; i < s->n_meta; i++)
		if (!strcmp(s->meta[i].key, key))
			return s->meta[i].value;
	return NULL;
}

static void hex(const uint8_t *p, unsigned int n, char *out)
{
	for (unsigned int i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

/* One hash: its line (text) or object (JSON), a finding when the stored
 * one differs. */
static void compare(struct verify *v, struct e4_source *s, const char *name,
		    const char *key, const char *computed, json_object *ev)
{
	const char *want = stored(s, key);
	int match;
	json_object *o;

	/* Only a digest of the right length is compared or shown: a value
	 * that is not one is never printed (it may carry terminal escapes). */
	if (want && (strlen(want) != strlen(computed) ||
		     strspn(want, "0123456789abcdefABCDEF") != strlen(want))) {
		vfind(v, CHECK_EVIDENCE_HASH, 0, NULL,
		      "the %s container stores a %s that is not a hex digest of %zu digits",
		      s->kind, name, strlen(computed));
		want = NULL;
	}
	match = want && !strcasecmp(want, computed);
	if (want && !match)
		vfind(v, CHECK_EVIDENCE_HASH, 0, NULL,
		      "the %s of the media is %s; the %s container stores %s",
		      name, computed, s->kind, want);
	if (!v->json) {
		if (want)
			printf("evidence: %s stored in the container: %s; computed over the media: %s: %s\n",
			       name, want, computed, match ? "match" : "MISMATCH");
		else
			printf("evidence: %s computed over the media: %s (none stored)\n",
			       name, computed);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "stored", want ? json_object_new_string(want) : NULL);
	json_object_object_add(o, "computed", json_object_new_string(computed));
	json_object_object_add(o, "match", want ? json_object_new_boolean(match) : NULL);
	json_object_object_add(ev, name, o);
}

int verify_evidence(struct verify *v, const char *path, int quiet)
{
	struct e4_source *s;
	struct hashing h = { 0 };
	struct progress p;
	uint8_t *buf, md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	char why[1024], md5[33], sha1[41];
	enum e4_status st;

	st = e4_source_open_any(path, &s, why, sizeof(why));
	if (st != E4_OK) {
		report_error(v->r, "%s: cannot open: %s", path, why);
		return -1;
	}
	buf = malloc(READ_SIZE);
	h.md5 = EVP_MD_CTX_new();
	h.sha1 = EVP_MD_CTX_new();
	if (!buf || !h.md5 || !h.sha1 || !EVP_DigestInit_ex(h.md5, EVP_md5(), NULL) ||
	    !EVP_DigestInit_ex(h.sha1, EVP_sha1(), NULL)) {
		report_error(v->r, "%s: out of memory", path);
		st = E4_NOMEM;
		goto out;
	}
	progress_start(&p, !quiet, "hashing the media", 0);
	for (uint64_t off = 0; off < s->size; off += READ_SIZE) {
		size_t n = s->size - off < READ_SIZE ? (size_t)(s->size - off) : READ_SIZE;

		hash_range(v, &h, s, buf, off, n);
		progress_add(&p, 0, n);
	}
	end_run(v, &h);
	progress_end(&p);
	if (h.bad_ranges > RANGES_SHOWN)
		vfind(v, CHECK_EVIDENCE_HASH, 0, NULL,
		      "%llu bytes of the media in %llu ranges cannot be read (the first %u are listed)",
		      (unsigned long long)h.bad_bytes, (unsigned long long)h.bad_ranges,
		      RANGES_SHOWN);
	EVP_DigestFinal_ex(h.md5, md, &len);
	hex(md, len, md5);
	EVP_DigestFinal_ex(h.sha1, md, &len);
	hex(md, len, sha1);
	if (v->json) {
		v->evidence = json_object_new_object();
		json_object_object_add(v->evidence, "container", json_object_new_string(s->kind));
		json_object_object_add(v->evidence, "media_size", json_object_new_uint64(s->size));
		json_object_object_add(v->evidence, "unreadable_bytes",
				       json_object_new_uint64(h.bad_bytes));
	} else {
		printf("evidence: %s container, %llu bytes of media read%s\n", s->kind,
		       (unsigned long long)s->size, h.bad_bytes ? " (some unreadable: hashed as zeros)" : "");
	}
	compare(v, s, "md5", "stored md5", md5, v->evidence);
	compare(v, s, "sha1", "stored sha1", sha1, v->evidence);
out:
	EVP_MD_CTX_free(h.md5);
	EVP_MD_CTX_free(h.sha1);
	free(buf);
	e4_source_close(s);
	return st == E4_OK ? 0 : -1;
}
