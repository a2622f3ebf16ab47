#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <argon2.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include "fscrypt_tool.pb-c.h"
#include "fscrypt_tool.h"
#include "hex.h"
#include "kdf.h"

const char *e4_fsc_source_name(enum e4_fsc_source s)
{
	switch (s) {
	case E4_FSC_PAM_PASSPHRASE: return "pam_passphrase";
	case E4_FSC_CUSTOM_PASSPHRASE: return "custom_passphrase";
	case E4_FSC_RAW_KEY: return "raw_key";
	default: return "unknown";
	}
}

/* len lowercase hex digits, as Go's hex.EncodeToString writes them. */
static int take_hex(char *out, const ProtobufCBinaryData *b, size_t len)
{
	if (b->len != len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		uint8_t c = b->data[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return -1;
		out[i] = (char)c;
	}
	out[len] = 0;
	return 0;
}

/* fscrypt's WrappedKeyData.CheckValidity and the key length its user
 * wants (32: protector key, 64: policy key). */
static const char *take_wrapped(struct e4_fsc_wrapped *w,
				const E4fsc__Wrapped *m, size_t key_len)
{
	if (!m)
		return "no wrapped key";
	if (m->iv.len != E4_FSC_IV)
		return "the wrapped key's IV is not 16 bytes";
	if (m->hmac.len != E4_FSC_HMAC)
		return "the wrapped key's HMAC is not 32 bytes";
	if (m->encrypted_key.len != key_len)
		return key_len == E4_FSC_KEY ? "the wrapped protector key is not 32 bytes" :
					       "the wrapped policy key is not 64 bytes";
	memcpy(w->iv, m->iv.data, E4_FSC_IV);
	memcpy(w->hmac, m->hmac.data, E4_FSC_HMAC);
	memcpy(w->key, m->encrypted_key.data, key_len);
	w->key_len = key_len;
	return NULL;
}

enum e4_status e4_fsc_protector_parse(const uint8_t *data, size_t len,
				      struct e4_fsc_protector *p,
				      const char **why)
{
	E4fsc__Protector *m;
	const char *bad = NULL;

	memset(p, 0, sizeof(*p));
	*why = NULL;
	if (len > E4_FSC_MAX_FILE) {
		*why = "larger than the 16384 bytes fscrypt reads";
		return E4_LIMIT;
	}
	m = e4fsc__protector__unpack(NULL, len, data);
	if (!m) {
		*why = "not a protobuf ProtectorData (truncated or malformed)";
		return E4_CORRUPT;
	}
	switch ((int)m->source) {
	case E4_FSC_PAM_PASSPHRASE:
	case E4_FSC_CUSTOM_PASSPHRASE:
	case E4_FSC_RAW_KEY:
		p->source = (enum e4_fsc_source)m->source;
		break;
	case 0:
		bad = "no protector source";
		goto out;
	default:
		bad = "an unknown protector source";
		goto out;
	}
	if (p->source == E4_FSC_PAM_PASSPHRASE && m->uid < 0) {
		bad = "a negative uid";
		goto out;
	}
	p->uid = m->uid;
	if (p->source != E4_FSC_RAW_KEY) {
		if (!m->costs) {
			bad = "a passphrase protector without hashing costs";
			goto out;
		}
		p->costs.time = m->costs->time;
		p->costs.memory = m->costs->memory;
		p->costs.parallelism = m->costs->parallelism;
		p->costs.truncation_fixed = m->costs->truncation_fixed;
		if (p->costs.time <= 0 || p->costs.parallelism <= 0 ||
		    p->costs.parallelism > INT64_MAX / 8 ||
		    p->costs.memory < 8 * p->costs.parallelism) {
			bad = "invalid hashing costs (time and parallelism must be positive, memory at least 8 x parallelism)";
			goto out;
		}
		if (m->salt.len != E4_FSC_SALT) {
			bad = "a passphrase salt that is not 16 bytes";
			goto out;
		}
		memcpy(p->salt, m->salt.data, E4_FSC_SALT);
	}
	bad = take_wrapped(&p->wrapped, m->wrapped_key, E4_FSC_KEY);
	if (bad)
		goto out;
	if (take_hex(p->descriptor, &m->descriptor, E4_FSC_PROTECTOR_DESC)) {
		bad = "a protector descriptor that is not 16 lowercase hex digits";
		goto out;
	}
	if (m->name.len) {
		p->name = malloc(m->name.len);
		if (!p->name) {
			e4fsc__protector__free_unpacked(m, NULL);
			return E4_NOMEM;
		}
		memcpy(p->name, m->name.data, m->name.len);
		p->name_len = m->name.len;
	}
out:
	e4fsc__protector__free_unpacked(m, NULL);
	if (bad) {
		e4_fsc_protector_free(p);
		*why = bad;
		return E4_CORRUPT;
	}
	return E4_OK;
}

void e4_fsc_protector_free(struct e4_fsc_protector *p)
{
	free(p->name);
	memset(p, 0, sizeof(*p));
}

enum e4_status e4_fsc_policy_parse(const uint8_t *data, size_t len,
				   struct e4_fsc_policy *p, const char **why)
{
	E4fsc__Policy *m;
	const char *bad = NULL;
	int64_t v;

	memset(p, 0, sizeof(*p));
	*why = NULL;
	if (len > E4_FSC_MAX_FILE) {
		*why = "larger than the 16384 bytes fscrypt reads";
		return E4_LIMIT;
	}
	m = e4fsc__policy__unpack(NULL, len, data);
	if (!m) {
		*why = "not a protobuf PolicyData (truncated or malformed)";
		return E4_CORRUPT;
	}
	if (!m->options) {
		bad = "no encryption options";
		goto out;
	}
	v = m->options->policy_version ? m->options->policy_version : 1;
	if (v != 1 && v != 2) {
		bad = "a policy version other than 1 and 2";
		goto out;
	}
	p->version = (unsigned int)v;
	p->padding = m->options->padding;
	if (p->padding != 4 && p->padding != 8 && p->padding != 16 &&
	    p->padding != 32) {
		bad = "a padding other than 4, 8, 16 and 32";
		goto out;
	}
	p->contents = m->options->contents;
	p->filenames = m->options->filenames;
	if (p->contents <= 0 || p->filenames <= 0) {
		bad = "no contents or filenames encryption mode";
		goto out;
	}
	if (take_hex(p->descriptor, &m->key_descriptor,
		     v == 1 ? E4_FSC_POLICY_DESC_V1 : E4_FSC_POLICY_DESC_V2)) {
		bad = v == 1 ? "a v1 policy descriptor that is not 16 lowercase hex digits" :
			       "a v2 policy identifier that is not 32 lowercase hex digits";
		goto out;
	}
	if (m->n_slots) {
		/* at most E4_FSC_MAX_FILE / 2 slots fit the file */
		p->slots = calloc(m->n_slots, sizeof(*p->slots));
		if (!p->slots) {
			e4fsc__policy__free_unpacked(m, NULL);
			return E4_NOMEM;
		}
	}
	for (size_t i = 0; i < m->n_slots; i++) {
		const E4fsc__PolicySlot *s = m->slots[i];

		bad = take_wrapped(&p->slots[i].wrapped, s->wrapped_key,
				   E4_FSC_POLICY_KEY);
		if (!bad && take_hex(p->slots[i].protector,
				     &s->protector_descriptor,
				     E4_FSC_PROTECTOR_DESC))
			bad = "a key slot's protector descriptor is not 16 lowercase hex digits";
		if (bad)
			goto out;
		p->n_slots++;
	}
out:
	e4fsc__policy__free_unpacked(m, NULL);
	if (bad) {
		e4_fsc_policy_free(p);
		*why = bad;
		return E4_CORRUPT;
	}
	return E4_OK;
}

void e4_fsc_policy_free(struct e4_fsc_policy *p)
{
	free(p->slots);
	memset(p, 0, sizeof(*p));
}

/* 8-4-4-4-12 hex digits, as /dev/disk/by-uuid names an ext4 UUID. */
static int parse_uuid(const uint8_t *s, size_t len, uint8_t out[16])
{
	size_t j = 0;

	if (len != 36)
		return -1;
	for (size_t i = 0; i < 36;) {
		int hi, lo;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i++] != '-')
				return -1;
			continue;
		}
		hi = e4_hexval(s[i]);
		lo = e4_hexval(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[j++] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	return 0;
}

static void trim(const uint8_t **s, size_t *n)
{
	while (*n && ((*s)[0] == ' ' || (*s)[0] == '\t' || (*s)[0] == '\r' ||
		      (*s)[0] == '\v' || (*s)[0] == '\f')) {
		(*s)++;
		(*n)--;
	}
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' ||
		      (*s)[*n - 1] == '\r' || (*s)[*n - 1] == '\v' ||
		      (*s)[*n - 1] == '\f'))
		(*n)--;
}

enum e4_status e4_fsc_link_parse(const uint8_t *data, size_t len,
				 struct e4_fsc_link *l, const char **why)
{
	size_t pos = 0;
	int uuid_bad = 0;

	memset(l, 0, sizeof(*l));
	*why = NULL;
	if (len > E4_FSC_MAX_FILE) {
		*why = "larger than the 16384 bytes fscrypt reads";
		return E4_LIMIT;
	}
	/* fscrypt's getMountFromLink: lines split at '\n' and trimmed; a
	 * line is TOKEN=VALUE with exactly one '='; the last of each wins */
	while (pos < len) {
		const uint8_t *line = data + pos, *nl, *eq;
		size_t n;

		nl = memchr(line, '\n', len - pos);
		n = nl ? (size_t)(nl - line) : len - pos;
		pos += n + 1;
		trim(&line, &n);
		eq = n ? memchr(line, '=', n) : NULL;
		if (!eq || memchr(eq + 1, '=', n - (size_t)(eq - line) - 1))
			continue;
		if (eq - line == 4 && !memcmp(line, "UUID", 4)) {
			size_t vl = n - 5;

			l->has_uuid = vl && !parse_uuid(eq + 1, vl, l->uuid);
			uuid_bad = vl && !l->has_uuid;
		} else if (eq - line == 4 && !memcmp(line, "PATH", 4)) {
			l->path = eq + 1;
			l->path_len = n - 5;
		}
	}
	if (uuid_bad && !l->path_len) {
		*why = "its UUID is not a filesystem UUID";
		return E4_CORRUPT;
	}
	if (!l->has_uuid && !l->path_len) {
		*why = "names no filesystem (neither UUID= nor PATH=)";
		return E4_CORRUPT;
	}
	return E4_OK;
}

unsigned int e4_fsc_lanes(const struct e4_fsc_costs *c)
{
	return (unsigned int)(uint8_t)c->parallelism;
}

enum e4_status e4_fsc_check_costs(const struct e4_fsc_costs *c,
				  uint64_t max_memory_kib, uint64_t max_time,
				  char *why, size_t why_len)
{
	unsigned int lanes = e4_fsc_lanes(c);

	if (c->time <= 0 || c->parallelism <= 0 || c->memory <= 0) {
		snprintf(why, why_len, "invalid Argon2id costs");
		return E4_CORRUPT;
	}
	if ((uint64_t)c->memory > max_memory_kib) {
		snprintf(why, why_len,
			 "Argon2id memory of %lld KiB (%.1f GiB) is above the cap of %llu KiB (--argon2-max-memory)",
			 (long long)c->memory, (double)c->memory / (1024.0 * 1024.0),
			 (unsigned long long)max_memory_kib);
		return E4_LIMIT;
	}
	if ((uint64_t)c->time > max_time) {
		snprintf(why, why_len,
			 "Argon2id time cost of %lld passes is above the cap of %llu (--argon2-max-time)",
			 (long long)c->time, (unsigned long long)max_time);
		return E4_LIMIT;
	}
	if (c->memory > UINT32_MAX || c->time > UINT32_MAX) {
		snprintf(why, why_len, "Argon2id costs beyond 32 bits");
		return E4_LIMIT;
	}
	if (c->truncation_fixed && c->parallelism > 255) {
		snprintf(why, why_len,
			 "parallelism %lld is above 255 with truncation_fixed set (fscrypt 0.3.4 on refuses it)",
			 (long long)c->parallelism);
		return E4_CORRUPT;
	}
	if (lanes == 0) {
		snprintf(why, why_len,
			 "parallelism %lld is 0 lanes once cut to 8 bits as fscrypt cuts it",
			 (long long)c->parallelism);
		return E4_CORRUPT;
	}
	if ((uint64_t)c->memory < 8u * lanes) {
		snprintf(why, why_len, "Argon2id memory below 8 KiB per lane");
		return E4_CORRUPT;
	}
	return E4_OK;
}

enum e4_status e4_fsc_passphrase_hash(uint8_t out[E4_FSC_KEY],
				      const uint8_t *pass, size_t pass_len,
				      const uint8_t salt[E4_FSC_SALT],
				      const struct e4_fsc_costs *c,
				      uint64_t max_memory_kib,
				      uint64_t max_time)
{
	char why[160];
	enum e4_status st = e4_fsc_check_costs(c, max_memory_kib, max_time,
					       why, sizeof(why));
	argon2_context ctx;
	uint8_t s[E4_FSC_SALT];
	int rc;

	if (st != E4_OK)
		return st;
	if (pass_len > UINT32_MAX)
		return E4_INVALID;
	memcpy(s, salt, sizeof(s));
	memset(&ctx, 0, sizeof(ctx));
	ctx.out = out;
	ctx.outlen = E4_FSC_KEY;
	/* libargon2 takes them as not const; ARGON2_DEFAULT_FLAGS leaves
	 * them as they are */
	ctx.pwd = (uint8_t *)(uintptr_t)pass;
	ctx.pwdlen = (uint32_t)pass_len;
	ctx.salt = s;
	ctx.saltlen = sizeof(s);
	ctx.t_cost = (uint32_t)c->time;
	ctx.m_cost = (uint32_t)c->memory;
	ctx.lanes = e4_fsc_lanes(c);
	ctx.threads = ctx.lanes < 4 ? ctx.lanes : 4; /* the result is the same */
	ctx.version = ARGON2_VERSION_13;               /* Go's x/crypto/argon2 */
	ctx.flags = ARGON2_DEFAULT_FLAGS;
	rc = argon2_ctx(&ctx, Argon2_id);
	if (rc != ARGON2_OK) {
		e4_wipe(out, E4_FSC_KEY);
		return rc == ARGON2_MEMORY_ALLOCATION_ERROR ? E4_NOMEM : E4_CRYPTO;
	}
	return E4_OK;
}

/* fscrypt's stretchKey: 64 bytes of HKDF-SHA256 (no salt, no info) read
 * as the encryption key, then the authentication key. */
static enum e4_status stretch(uint8_t out[2 * E4_FSC_KEY],
			      const uint8_t key[E4_FSC_KEY])
{
	EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
	EVP_KDF_CTX *ctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
	OSSL_PARAM p[4], *q = p;
	int ok;

	EVP_KDF_free(kdf);
	if (!ctx)
		return E4_CRYPTO;
	*q++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST,
						(char *)"SHA256", 0);
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY,
						 (void *)key, E4_FSC_KEY);
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT,
						 (void *)"", 0);
	*q = OSSL_PARAM_construct_end();
	ok = EVP_KDF_derive(ctx, out, 2 * E4_FSC_KEY, p) > 0;
	EVP_KDF_CTX_free(ctx);
	return ok ? E4_OK : E4_CRYPTO;
}

enum e4_status e4_fsc_unwrap(uint8_t *out, const uint8_t key[E4_FSC_KEY],
			     const struct e4_fsc_wrapped *w)
{
	uint8_t keys[2 * E4_FSC_KEY], mac[E4_FSC_HMAC], buf[E4_FSC_IV + E4_FSC_POLICY_KEY];
	unsigned int mac_len = 0;
	EVP_CIPHER_CTX *c = NULL;
	enum e4_status st;
	int n = 0, ok;

	if (w->key_len != E4_FSC_KEY && w->key_len != E4_FSC_POLICY_KEY)
		return E4_INVALID;
	memset(out, 0, w->key_len);
	st = stretch(keys, key);
	if (st != E4_OK)
		goto out;
	memcpy(buf, w->iv, E4_FSC_IV);
	memcpy(buf + E4_FSC_IV, w->key, w->key_len);
	if (!HMAC(EVP_sha256(), keys + E4_FSC_KEY, E4_FSC_KEY, buf,
		  E4_FSC_IV + w->key_len, mac, &mac_len) || mac_len != E4_FSC_HMAC) {
		st = E4_CRYPTO;
		goto out;
	}
	if (CRYPTO_memcmp(mac, w->hmac, E4_FSC_HMAC)) {
		st = E4_BAD_KEY;
		goto out;
	}
	c = EVP_CIPHER_CTX_new();
	ok = c && EVP_DecryptInit_ex2(c, EVP_aes_256_ctr(), keys, w->iv, NULL) &&
	     EVP_DecryptUpdate(c, out, &n, w->key, (int)w->key_len) &&
	     (size_t)n == w->key_len;
	EVP_CIPHER_CTX_free(c); /* cleanses the key schedule */
	if (!ok) {
		e4_wipe(out, w->key_len);
		st = E4_CRYPTO;
	}
out:
	e4_wipe(keys, sizeof(keys));
	e4_wipe(mac, sizeof(mac));
	return st;
}

enum e4_status e4_fsc_descriptor(char out[E4_FSC_POLICY_DESC_V2 + 1],
				 const uint8_t *key, size_t len,
				 unsigned int version)
{
	uint8_t id[16];
	size_t n = version == 2 ? 16 : 8;
	enum e4_status st;

	st = version == 2 ? e4_v2_key_identifier(id, key, len) :
			    e4_e4crypt_descriptor(id, key, len);
	if (st != E4_OK)
		return st;
	e4_hex_encode(id, n, out);
	return E4_OK;
}
