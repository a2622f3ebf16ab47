/* --json: JSON Lines on standard output, one object per record, each with
 * a "type" (json-c builds them; strings from the image are given in their
 * escaped display form, and raw bytes as hex). */
#ifndef E4DUMP_JSONOUT_H
#define E4DUMP_JSONOUT_H

#include <json-c/json.h>
#include "inode.h"
#include "walk.h"

struct session;

/* Bytes from the image (or its file name) as a JSON string: e4_escape's
 * display form, as ls --json gives paths and names (control bytes, '\\',
 * ill-formed UTF-8 as \\xHH), so every line is UTF-8 and the bytes come
 * back by decoding \\xHH.  NULL when out of memory. */
json_object *json_name(const char *raw);

/* Put every string of o that is not UTF-8 in json_name's form (what
 * json_emit does; for JSON written elsewhere, e.g. extract's sidecars). */
void json_well_formed(json_object *o);

/* Print o as one line and free it.  A string that is not UTF-8 is
 * printed in json_name's form. */
void json_emit(json_object *o);

/* A record of type t. */
json_object *json_record(const char *type);

/* A name's state as records give it: "plain", "decrypted", "no-key" or
 * "bad". */
const char *json_name_state(enum e4_name_state st);

/* A time as "YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ" (UTC) into buf; 0, or -1
 * (then "-") when it has no date. */
#define JSON_TIME_MAX 48
int json_time_text(const struct e4_timestamp *ts, char buf[JSON_TIME_MAX]);

/* "2021-01-07T06:30:00.000000000Z" */
json_object *json_time(const struct e4_timestamp *ts);

/* Lowercase hex of n bytes. */
json_object *json_hex(const uint8_t *p, size_t n);

#endif
