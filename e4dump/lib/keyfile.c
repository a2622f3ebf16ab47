#include <stdio.h>
#include <string.h>
#include "hex.h"
#include "kdf.h"
#include "keyfile.h"

static int is_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Returns the number of bytes decoded, or -1 if data is not hex text. */
static long parse_hex(const uint8_t *data, size_t size,
		      uint8_t key[E4_MAX_KEY_SIZE])
{
	size_t digits = 0;
	int hi = -1;

	for (size_t i = 0; i < size; i++) {
		int v;

		if (is_space(data[i]))
			continue;
		v = e4_hexval(data[i]);
		if (v < 0)
			return -1;
		if (digits / 2 >= E4_MAX_KEY_SIZE)
			return -2; /* too long for a key */
		if (hi < 0) {
			hi = v;
		} else {
			key[digits / 2] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
		digits++;
	}
	if (digits % 2)
		return -3;
	return (long)(digits / 2);
}

static int is_states_file(const uint8_t *data, size_t size);

enum e4_status e4_keyfile_parse(const uint8_t *data, size_t size,
				uint8_t key[E4_MAX_KEY_SIZE], size_t *key_len,
				const char **why)
{
	long n = parse_hex(data, size, key);

	*key_len = 0;
	*why = NULL;
	if (n < 0 && is_states_file(data, size)) {
		e4_wipe(key, E4_MAX_KEY_SIZE);
		*why = "HKDF states, not a raw key (read with e4_keyfile_read)";
		return E4_BAD_KEY;
	}
	if (n >= 0 || n == -3) {
		/* Hex text.  (A raw key made only of hex digits and spaces
		 * is read as hex: 2^-100 odds for a random 32-byte key.) */
		if (n == -3) {
			*why = "odd number of hex digits";
		} else if (n < E4_MASTER_KEY_MIN) {
			*why = "hex key shorter than 16 bytes";
		} else {
			*key_len = (size_t)n;
			return E4_OK;
		}
		e4_wipe(key, E4_MAX_KEY_SIZE);
		return E4_BAD_KEY;
	}
	e4_wipe(key, E4_MAX_KEY_SIZE);
	if (n == -2 && size > E4_MAX_KEY_SIZE) {
		*why = "key longer than 64 bytes";
		return E4_BAD_KEY;
	}
	if (size < E4_MASTER_KEY_MIN || size > E4_MAX_KEY_SIZE) {
		*why = size < E4_MASTER_KEY_MIN ? "key shorter than 16 bytes" :
						  "key longer than 64 bytes";
		return E4_BAD_KEY;
	}
	memcpy(key, data, size);
	*key_len = size;
	return E4_OK;
}

/* ---- the states form ---- */

/* The fields after the version line: each names its line in errors. */
static const struct field {
	const char *name;
	size_t bytes;
	const char *twice, *bad, *missing;
} FIELDS[] = {
	{ "identifier", 16, "identifier line given twice",
	  "identifier: not 32 hex digits", "no identifier line" },
	{ "ipad_state", E4_HMAC_STATE_BYTES, "ipad_state line given twice",
	  "ipad_state: not 128 hex digits", "no ipad_state line" },
	{ "opad_state", E4_HMAC_STATE_BYTES, "opad_state line given twice",
	  "opad_state: not 128 hex digits", "no opad_state line" },
};
#define NFIELDS (sizeof(FIELDS) / sizeof(FIELDS[0]))

static int is_blank(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* One line: its first word and the rest, blanks around both cut. */
struct line {
	const char *word, *value;
	size_t word_len, value_len;
};

/* The next line from *pos that is neither blank nor a comment: 0 at the
 * end of data. */
static int next_line(const uint8_t *data, size_t size, size_t *pos,
		     struct line *l)
{
	while (*pos < size) {
		size_t b = *pos, e, w;

		while (*pos < size && data[*pos] != '\n')
			(*pos)++;
		e = *pos;
		if (*pos < size)
			(*pos)++; /* the newline */
		while (b < e && is_blank(data[b]))
			b++;
		while (e > b && is_blank(data[e - 1]))
			e--;
		if (b == e || data[b] == '#')
			continue;
		for (w = b; w < e && !is_blank(data[w]); w++)
			;
		l->word = (const char *)data + b;
		l->word_len = w - b;
		while (w < e && is_blank(data[w]))
			w++;
		l->value = (const char *)data + w;
		l->value_len = e - w;
		return 1;
	}
	return 0;
}

static int word_is(const struct line *l, const char *w)
{
	return l->word_len == strlen(w) && !memcmp(l->word, w, l->word_len);
}

/* Whether data is a states key file: its first line that counts starts
 * with the magic word. */
static int is_states_file(const uint8_t *data, size_t size)
{
	size_t pos = 0, n = strlen(E4_KEYFILE_STATES_MAGIC);
	struct line l;

	return next_line(data, size, &pos, &l) && l.word_len >= n &&
	       !memcmp(l.word, E4_KEYFILE_STATES_MAGIC, n);
}

/* The fields of a states file into val (FIELDS' order). */
static const char *parse_fields(const uint8_t *data, size_t size,
				uint8_t val[NFIELDS][E4_HMAC_STATE_BYTES])
{
	char version[8];
	int seen[NFIELDS] = { 0 };
	size_t pos = 0;
	struct line l;

	snprintf(version, sizeof(version), "%d", E4_KEYFILE_STATES_VERSION);
	next_line(data, size, &pos, &l);
	if (!word_is(&l, E4_KEYFILE_STATES_MAGIC) || !l.value_len ||
	    memchr(l.value, ' ', l.value_len) || memchr(l.value, '\t', l.value_len))
		return "first line is not \"" E4_KEYFILE_STATES_MAGIC " VERSION\"";
	if (l.value_len != strlen(version) || memcmp(l.value, version, l.value_len))
		return "unsupported version of the states form (this e4dump reads version 1)";
	while (next_line(data, size, &pos, &l)) {
		size_t f;

		for (f = 0; f < NFIELDS && !word_is(&l, FIELDS[f].name); f++)
			;
		if (f == NFIELDS)
			return "unknown line (not identifier, ipad_state or opad_state)";
		if (seen[f]++)
			return FIELDS[f].twice;
		if (l.value_len != 2 * FIELDS[f].bytes ||
		    e4_hex_decode(l.value, l.value_len, val[f], FIELDS[f].bytes) !=
			    (long)FIELDS[f].bytes)
			return FIELDS[f].bad;
	}
	for (size_t f = 0; f < NFIELDS; f++)
		if (!seen[f])
			return FIELDS[f].missing;
	return NULL;
}

static const char *parse_states(const uint8_t *data, size_t size,
				struct e4_keyfile *out)
{
	uint8_t val[NFIELDS][E4_HMAC_STATE_BYTES];
	const char *why = parse_fields(data, size, val);

	if (!why) {
		e4_hmac_state_load(out->states.ipad, val[1]);
		e4_hmac_state_load(out->states.opad, val[2]);
		if (e4_hmac_states_identifier(&out->states, out->identifier) != E4_OK)
			why = "cannot compute the identifier of its states";
		else if (memcmp(out->identifier, val[0], sizeof(out->identifier)))
			why = "identifier does not match its states";
	}
	e4_wipe(val, sizeof(val));
	return why;
}

enum e4_status e4_keyfile_read(const uint8_t *data, size_t size,
			       struct e4_keyfile *out, const char **why)
{
	enum e4_status st;

	memset(out, 0, sizeof(*out));
	*why = NULL;
	if (!is_states_file(data, size))
		return e4_keyfile_parse(data, size, out->key, &out->key_len, why);
	out->is_states = 1;
	*why = parse_states(data, size, out);
	st = *why ? E4_BAD_KEY : E4_OK;
	if (st != E4_OK)
		e4_wipe(out, sizeof(*out));
	return st;
}

size_t e4_keyfile_format_states(const struct e4_hmac_states *st, char *buf,
				size_t len)
{
	char text[E4_KEYFILE_STATES_TEXT_MAX];
	char hex[NFIELDS][2 * E4_HMAC_STATE_BYTES + 1];
	uint8_t b[E4_HMAC_STATE_BYTES];
	int n;

	if (len)
		buf[0] = 0;
	if (e4_hmac_states_identifier(st, b) != E4_OK)
		return 0;
	e4_hex_encode(b, 16, hex[0]);
	e4_hmac_state_store(st->ipad, b);
	e4_hex_encode(b, sizeof(b), hex[1]);
	e4_hmac_state_store(st->opad, b);
	e4_hex_encode(b, sizeof(b), hex[2]);
	n = snprintf(text, sizeof(text),
		     "# e4dump: the HKDF states of a v2 master key: SECRET, they open every file the key opens\n"
		     "%s %d\n%s %s\n%s %s\n%s %s\n",
		     E4_KEYFILE_STATES_MAGIC, E4_KEYFILE_STATES_VERSION,
		     FIELDS[0].name, hex[0], FIELDS[1].name, hex[1],
		     FIELDS[2].name, hex[2]);
	if (n > 0 && (size_t)n < len)
		memcpy(buf, text, (size_t)n + 1);
	e4_wipe(text, sizeof(text));
	e4_wipe(hex, sizeof(hex));
	e4_wipe(b, sizeof(b));
	return n > 0 && (size_t)n < sizeof(text) ? (size_t)n : 0;
}
