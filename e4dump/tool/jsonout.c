#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dir.h"
#include "escape.h"
#include "utf8.h"
#include "jsonout.h"

json_object *json_name(const char *raw)
{
	size_t n = strlen(raw);
	char *e = malloc(E4_ESCAPE_SIZE(n));
	json_object *o;

	if (!e)
		return NULL;
	e4_escape((const uint8_t *)raw, n, e, 0);
	o = json_object_new_string(e);
	free(e);
	return o;
}

static int well_formed(const char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0, k; i < n; i += k)
		if (!(k = e4_utf8_seq_len((const uint8_t *)s + i, n - i)))
			return 0;
	return 1;
}

/* Strings that are not UTF-8 (none should be: the image's bytes come as
 * json_name gives them) in json_name's form, so that a line is always
 * UTF-8. */
void json_well_formed(json_object *o)
{
	size_t n;

	switch (json_object_get_type(o)) {
	case json_type_object: {
		json_object_object_foreach(o, k, v) {
			if (json_object_get_type(v) == json_type_string &&
			    !well_formed(json_object_get_string(v)))
				json_object_object_add(o, k, json_name(json_object_get_string(v)));
			else
				json_well_formed(v);
		}
		break;
	}
	case json_type_array:
		n = json_object_array_length(o);
		for (size_t i = 0; i < n; i++) {
			json_object *v = json_object_array_get_idx(o, i);

			if (json_object_get_type(v) == json_type_string &&
			    !well_formed(json_object_get_string(v)))
				json_object_array_put_idx(o, i, json_name(json_object_get_string(v)));
			else
				json_well_formed(v);
		}
		break;
	default:
		break;
	}
}

void json_emit(json_object *o)
{
	if (!o)
		return; /* out of memory */
	json_well_formed(o);
	flockfile(stdout);
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						   JSON_C_TO_STRING_NOSLASHESCAPE));
	funlockfile(stdout);
	json_object_put(o);
}

json_object *json_record(const char *type)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "type", json_object_new_string(type));
	return o;
}

const char *json_name_state(enum e4_name_state st)
{
	switch (st) {
	case E4_NAME_PLAIN: return "plain";
	case E4_NAME_DECRYPTED: return "decrypted";
	case E4_NAME_NOKEY: return "no-key";
	default: return "bad";
	}
}

int json_time_text(const struct e4_timestamp *ts, char buf[JSON_TIME_MAX])
{
	time_t t = (time_t)ts->sec;
	struct tm tm;
	size_t n;

	if (!gmtime_r(&t, &tm) || !(n = strftime(buf, JSON_TIME_MAX, "%Y-%m-%dT%H:%M:%S", &tm))) {
		snprintf(buf, JSON_TIME_MAX, "-");
		return -1;
	}
	snprintf(buf + n, JSON_TIME_MAX - n, ".%09" PRIu32 "Z", ts->nsec);
	return 0;
}

json_object *json_time(const struct e4_timestamp *ts)
{
	char buf[JSON_TIME_MAX];

	return json_time_text(ts, buf) ? NULL : json_object_new_string(buf);
}

json_object *json_hex(const uint8_t *p, size_t n)
{
	char *s = malloc(2 * n + 1);
	json_object *o;

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++)
		snprintf(s + 2 * i, 3, "%02x", p[i]);
	s[2 * n] = 0;
	o = json_object_new_string(s);
	free(s);
	return o;
}
