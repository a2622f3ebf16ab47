#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include "adiantum.h"
#include "algs_impl.h"
#include "cipher.h"
#include "fscrypt_disk.h"
#include "hctr2.h"
#include "modes.h"
#include "utf8.h"

struct e4_cipher {
	uint8_t mode;
	enum e4_iv_scheme iv_scheme;
	uint32_t iv_ino;      /* inode number or its hash, per iv_scheme */
	EVP_CIPHER *cipher;   /* fetched once */
	EVP_CIPHER_CTX *dec;  /* keyed once; only the IV changes per call */
	EVP_CIPHER_CTX *enc;  /* made at the first encryption (vectors) */
	int enc_tried;
	uint8_t key[E4_MAX_KEY_SIZE]; /* for enc; wiped with the struct */
	size_t keylen;
	EVP_CIPHER_CTX *essiv; /* AES-256-ECB keyed with SHA-256(key) */
	struct e4_adiantum *adiantum; /* mode 9 instead of the EVP contexts */
	struct e4_hctr2 *hctr2;       /* mode 10 likewise */
	int direct_key;               /* DIRECT_KEY: the nonce is in the IV */
	uint8_t nonce[E4_NONCE_SIZE];
};

/* Length-preserving wide-block modes with a 32-byte IV. */
static int is_wide(uint8_t mode)
{
	return mode == E4_MODE_ADIANTUM || mode == E4_MODE_AES_256_HCTR2;
}

static int is_cts(uint8_t mode)
{
	return mode == E4_MODE_AES_256_CTS || mode == E4_MODE_AES_128_CTS;
}

void e4_cipher_free(struct e4_cipher *c)
{
	if (!c)
		return;
	EVP_CIPHER_CTX_free(c->dec); /* cleanses key material */
	EVP_CIPHER_CTX_free(c->enc);
	EVP_CIPHER_CTX_free(c->essiv);
	EVP_CIPHER_free(c->cipher);
	e4_adiantum_free(c->adiantum);
	e4_hctr2_free(c->hctr2);
	OPENSSL_clear_free(c, sizeof(*c));
}

enum e4_status e4_cipher_new(struct e4_cipher **out, uint8_t mode,
			     const uint8_t *key, size_t keylen)
{
	return e4_cipher_new_algs(NULL, out, mode, key, keylen);
}

static const OSSL_PARAM *cts_params(uint8_t mode, OSSL_PARAM params[2])
{
	/* The kernel's cts(cbc(aes)) swaps the last two blocks: CS3. */
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_CIPHER_PARAM_CTS_MODE,
						     (char *)"CS3", 0);
	params[1] = OSSL_PARAM_construct_end();
	return is_cts(mode) ? params : NULL;
}

/* The encryption context, made at first use: decryption needs none.
 * OpenSSL refuses to encrypt with XTS keys whose halves are equal: then
 * NULL, and encryption fails. */
static EVP_CIPHER_CTX *enc_ctx(struct e4_cipher *c)
{
	OSSL_PARAM params[2];

	if (c->enc || c->enc_tried)
		return c->enc;
	c->enc_tried = 1;
	c->enc = EVP_CIPHER_CTX_new();
	if (c->enc && !EVP_EncryptInit_ex2(c->enc, c->cipher, c->key, NULL,
					   cts_params(c->mode, params))) {
		EVP_CIPHER_CTX_free(c->enc);
		c->enc = NULL;
	} else if (c->enc && c->mode == E4_MODE_AES_128_CBC) {
		EVP_CIPHER_CTX_set_padding(c->enc, 0);
	}
	return c->enc;
}

static EVP_CIPHER *cipher_of(const struct e4_algs *a, uint8_t mode)
{
	EVP_CIPHER *e;

	if (!a)
		return EVP_CIPHER_fetch(NULL,
			mode == E4_MODE_AES_256_XTS ? "AES-256-XTS" :
			mode == E4_MODE_AES_128_CBC ? "AES-128-CBC" :
			mode == E4_MODE_AES_128_CTS ? "AES-128-CBC-CTS" :
						      "AES-256-CBC-CTS", NULL);
	e = mode == E4_MODE_AES_256_XTS ? a->aes_256_xts :
	    mode == E4_MODE_AES_128_CBC ? a->aes_128_cbc :
	    mode == E4_MODE_AES_128_CTS ? a->aes_128_cts : a->aes_256_cts;
	return EVP_CIPHER_up_ref(e) ? e : NULL;
}

enum e4_status e4_cipher_new_algs(const struct e4_algs *a,
				  struct e4_cipher **out, uint8_t mode,
				  const uint8_t *key, size_t keylen)
{
	const struct e4_mode_info *m = e4_mode_lookup(mode);
	struct e4_cipher *c;
	OSSL_PARAM params[2];

	*out = NULL;
	if (!m)
		return E4_UNRECOGNIZED;
	if (!m->supported)
		return E4_UNSUPPORTED;
	if (keylen != m->keysize)
		return E4_BAD_KEY;
	if (is_wide(mode)) {
		enum e4_status st;

		c = calloc(1, sizeof(*c));
		if (!c)
			return E4_NOMEM;
		c->mode = mode;
		st = mode == E4_MODE_ADIANTUM ? e4_adiantum_new(&c->adiantum, key) :
		     e4_hctr2_new(&c->hctr2, key, keylen);
		if (st) {
			e4_cipher_free(c);
			return st;
		}
		*out = c;
		return E4_OK;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return E4_NOMEM;
	c->mode = mode;
	c->cipher = cipher_of(a, mode);
	c->dec = EVP_CIPHER_CTX_new();
	if (!c->cipher || !c->dec || keylen > sizeof(c->key))
		goto fail;
	memcpy(c->key, key, keylen);
	c->keylen = keylen;
	if (mode == E4_MODE_AES_128_CBC) {
		/* essiv(cbc(aes),sha256): the IV is encrypted with AES-256
		 * keyed with SHA-256 of the data key. */
		uint8_t salt[32];
		unsigned int sl;

		c->essiv = EVP_CIPHER_CTX_new();
		if (!c->essiv || !EVP_Digest(key, keylen, salt, &sl, EVP_sha256(), NULL) ||
		    !EVP_EncryptInit_ex2(c->essiv, a ? a->aes_256_ecb : EVP_aes_256_ecb(),
					 salt, NULL, NULL) ||
		    !EVP_CIPHER_CTX_set_padding(c->essiv, 0)) {
			OPENSSL_cleanse(salt, sizeof(salt));
			goto fail;
		}
		OPENSSL_cleanse(salt, sizeof(salt));
	}
	if (!EVP_DecryptInit_ex2(c->dec, c->cipher, key, NULL,
				 cts_params(mode, params)) ||
	    (mode == E4_MODE_AES_128_CBC && !EVP_CIPHER_CTX_set_padding(c->dec, 0)))
		goto fail;
	*out = c;
	return E4_OK;
fail:
	e4_cipher_free(c);
	return E4_CRYPTO;
}

static enum e4_status run(EVP_CIPHER_CTX *ctx, int enc, const uint8_t *iv,
			  const uint8_t *in, uint8_t *out, size_t len)
{
	int n = 0, m = 0;

	if (!ctx)
		return E4_CRYPTO;
	if (len > (size_t)INT32_MAX)
		return E4_CORRUPT;
	if (!EVP_CipherInit_ex2(ctx, NULL, NULL, iv, enc, NULL) ||
	    !EVP_CipherUpdate(ctx, out, &n, in, (int)len) ||
	    !EVP_CipherFinal_ex(ctx, out + n, &m) || (size_t)(n + m) != len)
		return E4_CRYPTO;
	return E4_OK;
}

void e4_cipher_set_iv_scheme(struct e4_cipher *c, enum e4_iv_scheme s,
			     uint32_t ino_or_hash)
{
	c->iv_scheme = s;
	c->iv_ino = ino_or_hash;
}

void e4_cipher_set_direct_key(struct e4_cipher *c,
			      const uint8_t nonce[E4_NONCE_SIZE])
{
	c->direct_key = 1;
	memcpy(c->nonce, nonce, E4_NONCE_SIZE);
}

/* union fscrypt_iv: le64 IV number, then under DIRECT_KEY the file's nonce,
 * then zeros up to the mode's IV size (16, or 32 for Adiantum and HCTR2). */
static void make_iv(const struct e4_cipher *c, uint8_t iv[E4_MAX_IV_SIZE],
		    uint64_t lblk)
{
	uint64_t n = lblk;

	if (c->iv_scheme == E4_IV_INO_LBLK_64)
		n = (lblk & 0xffffffffu) | (uint64_t)c->iv_ino << 32;
	else if (c->iv_scheme == E4_IV_INO_LBLK_32)
		n = (uint32_t)(c->iv_ino + (uint32_t)lblk);
	memset(iv, 0, E4_MAX_IV_SIZE);
	for (int i = 0; i < 8; i++)
		iv[i] = (uint8_t)(n >> (8 * i));
	if (c->direct_key && c->iv_scheme == E4_IV_LBLK)
		memcpy(iv + 8, c->nonce, E4_NONCE_SIZE);
}

/* Adiantum or HCTR2 over a whole data unit or name. */
static enum e4_status wide(struct e4_cipher *c, int enc, uint64_t lblk,
			   const uint8_t *in, uint8_t *out, size_t len)
{
	uint8_t iv[E4_MAX_IV_SIZE];

	make_iv(c, iv, lblk);
	if (c->adiantum)
		return e4_adiantum_crypt(c->adiantum, enc, iv, in, out, len);
	if (c->hctr2)
		return e4_hctr2_crypt(c->hctr2, enc, iv, in, out, len);
	return E4_UNSUPPORTED;
}

static enum e4_status data_unit(struct e4_cipher *c, int enc, uint64_t lblk,
				const uint8_t *in, uint8_t *out, size_t len)
{
	uint8_t iv[E4_MAX_IV_SIZE];

	if (c->mode == E4_MODE_ADIANTUM)
		return len < 16 ? E4_CORRUPT : wide(c, enc, lblk, in, out, len);
	if (c->mode != E4_MODE_AES_256_XTS && c->mode != E4_MODE_AES_128_CBC)
		return E4_UNSUPPORTED;
	if (len < 16 || (c->mode == E4_MODE_AES_128_CBC && len % 16))
		return E4_CORRUPT;
	make_iv(c, iv, lblk);
	if (c->essiv) {
		int n = 0;

		if (!EVP_EncryptUpdate(c->essiv, iv, &n, iv, 16) || n != 16)
			return E4_CRYPTO;
	}
	return run(enc ? enc_ctx(c) : c->dec, enc, iv, in, out, len);
}

enum e4_status e4_decrypt_data_unit(struct e4_cipher *c, uint64_t lblk,
				    const uint8_t *in, uint8_t *out, size_t len)
{
	return data_unit(c, 0, lblk, in, out, len);
}

enum e4_status e4_encrypt_data_unit(struct e4_cipher *c, uint64_t lblk,
				    const uint8_t *in, uint8_t *out, size_t len)
{
	return data_unit(c, 1, lblk, in, out, len);
}

/* CTS-decrypt and check the NUL padding; '/' is only allowed in paths. */
static enum e4_status decrypt_padded(struct e4_cipher *c, const uint8_t *in,
				     size_t len, uint8_t *out, size_t *plain_len,
				     int is_path)
{
	uint8_t iv[E4_MAX_IV_SIZE];
	enum e4_status st;
	size_t n;

	*plain_len = 0;
	if (!is_cts(c->mode) && !is_wide(c->mode))
		return E4_UNSUPPORTED;
	if (len < E4_FNAME_MIN_LEN)
		return E4_CORRUPT;
	if (is_wide(c->mode)) {
		st = wide(c, 0, 0, in, out, len);
	} else {
		make_iv(c, iv, 0);
		st = run(c->dec, 0, iv, in, out, len);
	}
	if (st)
		return st;
	n = strnlen((const char *)out, len);
	*plain_len = n;
	if (n == 0 || (!is_path && memchr(out, '/', n)))
		return E4_BAD_KEY;
	for (size_t i = n; i < len; i++)
		if (out[i])
			return E4_BAD_KEY;
	return E4_OK;
}

enum e4_status e4_decrypt_name(struct e4_cipher *c, const uint8_t *in,
			       size_t len, uint8_t *out, size_t *name_len)
{
	return decrypt_padded(c, in, len, out, name_len, 0);
}

enum e4_status e4_decrypt_path(struct e4_cipher *c, const uint8_t *in,
			       size_t len, uint8_t *out, size_t *path_len)
{
	return decrypt_padded(c, in, len, out, path_len, 1);
}

enum e4_status e4_encrypt_name(struct e4_cipher *c, const uint8_t *in,
			       size_t len, uint8_t *out)
{
	uint8_t iv[E4_MAX_IV_SIZE];

	if (!is_cts(c->mode) && !is_wide(c->mode))
		return E4_UNSUPPORTED;
	if (len < E4_FNAME_MIN_LEN)
		return E4_CORRUPT;
	if (is_wide(c->mode))
		return wide(c, 1, 0, in, out, len);
	make_iv(c, iv, 0);
	return run(enc_ctx(c), 1, iv, in, out, len);
}

/* Length of a printable UTF-8 character at s, or 0. */
static size_t utf8_char(const uint8_t *s, size_t n)
{
	if (s[0] < 0x20 || s[0] == 0x7f)
		return 0;
	return e4_utf8_seq_len(s, n);
}

unsigned int e4_name_evidence_bits(const uint8_t *plain, size_t stored_len,
				   size_t name_len)
{
	unsigned int bits = 8 * (unsigned int)(stored_len - name_len);
	size_t i = 0;

	while (i < name_len) {
		size_t k = utf8_char(plain + i, name_len - i);

		if (!k)
			return bits;
		i += k;
	}
	return bits + (unsigned int)name_len;
}

void e4_evidence_add(struct e4_evidence *ev, int ok, const uint8_t *plain,
		     size_t stored, size_t n)
{
	unsigned int bits;

	ev->names++;
	if (!ok) {
		ev->failed++;
		return;
	}
	bits = e4_name_evidence_bits(plain, stored, n);
	ev->bits += bits;
	if (bits >= 8)
		ev->verified++;
}

int e4_evidence_trusted(const struct e4_evidence *ev)
{
	return ev->verified && 2 * ev->verified > ev->names;
}

int e4_trial_ended(unsigned int bits, size_t names)
{
	return bits >= E4_TRIAL_EVIDENCE_BITS || names >= E4_TRIAL_NAMES;
}

int e4_trial_accepts(unsigned int bits, int complete)
{
	return bits >= E4_TRIAL_EVIDENCE_BITS || (complete && bits >= E4_TRIAL_EVIDENCE_MIN);
}
