#include <stdio.h>
#include <string.h>
#include "context.h"
#include "modes.h"

/* Mode pairs Linux 6.1 accepts (fs/crypto/policy.c). */
static int valid_mode_pair(uint8_t version, uint8_t contents, uint8_t names)
{
	if (contents == E4_MODE_AES_256_XTS && names == E4_MODE_AES_256_CTS)
		return 1;
	if (contents == E4_MODE_AES_128_CBC && names == E4_MODE_AES_128_CTS)
		return 1;
	if (contents == E4_MODE_ADIANTUM && names == E4_MODE_ADIANTUM)
		return 1;
	if (version == E4_CONTEXT_V2 && contents == E4_MODE_AES_256_XTS &&
	    names == E4_MODE_AES_256_HCTR2)
		return 1;
	return 0;
}

static enum e4_status check(struct e4_context *ctx, const uint8_t *data,
			    size_t size, const char **why)
{
	memset(ctx, 0, sizeof(*ctx));
	if (size == 0) {
		*why = "empty context";
		return E4_CORRUPT;
	}
	ctx->version = data[0];
	if (data[0] == E4_CONTEXT_V1) {
		if (size != sizeof(struct e4_disk_context_v1)) {
			*why = "v1 context is not 28 bytes";
			return E4_CORRUPT;
		}
		ctx->key_id_size = E4_KEY_DESCRIPTOR_SIZE;
		memcpy(ctx->key_id, data + 4, E4_KEY_DESCRIPTOR_SIZE);
		memcpy(ctx->nonce, data + 12, E4_NONCE_SIZE);
	} else if (data[0] == E4_CONTEXT_V2) {
		if (size != sizeof(struct e4_disk_context_v2)) {
			*why = "v2 context is not 40 bytes";
			return E4_CORRUPT;
		}
		ctx->key_id_size = E4_KEY_IDENTIFIER_SIZE;
		memcpy(ctx->key_id, data + 8, E4_KEY_IDENTIFIER_SIZE);
		memcpy(ctx->nonce, data + 24, E4_NONCE_SIZE);
	} else {
		*why = "unknown context version";
		return E4_UNRECOGNIZED;
	}
	ctx->contents_mode = data[1];
	ctx->filenames_mode = data[2];
	ctx->flags = data[3];
	if (ctx->version == E4_CONTEXT_V2 &&
	    (data[4] | data[5] | data[6] | data[7])) {
		*why = "v2 context reserved bytes are not zero";
		return E4_CORRUPT;
	}
	if (!valid_mode_pair(ctx->version, ctx->contents_mode,
			     ctx->filenames_mode)) {
		*why = "unknown encryption mode combination";
		return E4_UNRECOGNIZED;
	}
	if (ctx->flags & ~(ctx->version == E4_CONTEXT_V1 ?
			   E4_POLICY_FLAGS_V1_VALID : E4_POLICY_FLAGS_V2_VALID)) {
		*why = "unknown policy flags";
		return E4_UNRECOGNIZED;
	}
	if ((ctx->flags & E4_POLICY_FLAG_IV_INO_LBLK_64) &&
	    (ctx->flags & E4_POLICY_FLAG_IV_INO_LBLK_32)) {
		*why = "IV_INO_LBLK_64 and IV_INO_LBLK_32 both set";
		return E4_UNRECOGNIZED;
	}
	*why = NULL;
	return E4_OK;
}

enum e4_status e4_context_parse(struct e4_context *ctx, const uint8_t *data,
				size_t size)
{
	const char *why;

	return check(ctx, data, size, &why);
}

const char *e4_context_problem(const uint8_t *data, size_t size)
{
	struct e4_context ctx;
	const char *why;

	check(&ctx, data, size, &why);
	return why ? why : "valid";
}

int e4_context_same_policy(const struct e4_context *a,
			   const struct e4_context *b)
{
	return a->version == b->version &&
	       a->contents_mode == b->contents_mode &&
	       a->filenames_mode == b->filenames_mode &&
	       a->flags == b->flags && a->key_id_size == b->key_id_size &&
	       memcmp(a->key_id, b->key_id, a->key_id_size) == 0;
}

unsigned int e4_context_name_padding(const struct e4_context *ctx)
{
	return 4u << (ctx->flags & E4_POLICY_FLAGS_PAD_MASK);
}

void e4_policy_flags_name(uint8_t flags, char *buf)
{
	static const struct {
		uint8_t bit;
		const char *name;
	} bits[] = {
		{ E4_POLICY_FLAG_DIRECT_KEY, "DIRECT_KEY" },
		{ E4_POLICY_FLAG_IV_INO_LBLK_64, "IV_INO_LBLK_64" },
		{ E4_POLICY_FLAG_IV_INO_LBLK_32, "IV_INO_LBLK_32" },
	};
	size_t n = (size_t)snprintf(buf, E4_FLAGS_NAME_MAX, "PAD_%u",
				    4u << (flags & E4_POLICY_FLAGS_PAD_MASK));
	uint8_t rest = flags & (uint8_t)~E4_POLICY_FLAGS_PAD_MASK;

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (rest & bits[i].bit) {
			n += (size_t)snprintf(buf + n, E4_FLAGS_NAME_MAX - n, "|%s",
					      bits[i].name);
			rest &= (uint8_t)~bits[i].bit;
		}
	for (unsigned int b = 0x20; b <= 0x80; b <<= 1)
		if (rest & b)
			n += (size_t)snprintf(buf + n, E4_FLAGS_NAME_MAX - n, "|0x%02x", b);
}

void e4_context_key_id_hex(const struct e4_context *ctx, char *buf)
{
	static const char hex[] = "0123456789abcdef";

	for (unsigned int i = 0; i < ctx->key_id_size; i++) {
		buf[2 * i] = hex[ctx->key_id[i] >> 4];
		buf[2 * i + 1] = hex[ctx->key_id[i] & 15];
	}
	buf[2 * ctx->key_id_size] = '\0';
}

size_t e4_context_encode(const struct e4_context *ctx,
			 uint8_t out[E4_CONTEXT_MAX_SIZE])
{
	size_t id_at;

	if (ctx->version == E4_CONTEXT_V1 &&
	    ctx->key_id_size == E4_KEY_DESCRIPTOR_SIZE)
		id_at = 4;
	else if (ctx->version == E4_CONTEXT_V2 &&
		 ctx->key_id_size == E4_KEY_IDENTIFIER_SIZE)
		id_at = 8;
	else
		return 0;
	memset(out, 0, E4_CONTEXT_MAX_SIZE);
	out[0] = ctx->version;
	out[1] = ctx->contents_mode;
	out[2] = ctx->filenames_mode;
	out[3] = ctx->flags;
	memcpy(out + id_at, ctx->key_id, ctx->key_id_size);
	memcpy(out + id_at + ctx->key_id_size, ctx->nonce, E4_NONCE_SIZE);
	return id_at + ctx->key_id_size + E4_NONCE_SIZE;
}
