#!/usr/bin/env python3
"""Validate e4dump --json output against the shipped schema.

usage: schema_check.py SCHEMA TYPES OUT...

Each OUT is the standard output of one e4dump run with --json, and
OUT.rc holds its exit status.  Every line must be a JSON object that
validates against SCHEMA (jsonschema's Draft202012Validator, with format
checking), and the last line must be the run's summary, whose "exit" is
the exit status the run had; each record type of TYPES (comma-separated)
must be among them.  Prints one line per failure and a count of
the lines checked; exit 1 when anything failed.
"""
import json
import sys

import jsonschema
from jsonschema import Draft202012Validator


def main(schema_path, want, outs):
    schema = json.load(open(schema_path))
    Draft202012Validator.check_schema(schema)
    v = Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    # the same rules, one record type at a time: the definition the
    # schema's if/then picks for the type (a faster path to the same
    # verdict); a line whose type is not one of them gets the whole schema
    by_type = {}
    for branch in schema["allOf"]:
        t = branch["if"]["properties"]["type"]["const"]
        sub = dict(schema, allOf=[{"$ref": branch["then"]["$ref"]}])
        by_type[t] = Draft202012Validator(sub, format_checker=jsonschema.FormatChecker())
    bad, lines, types = [], 0, {}
    for out in outs:
        rc = int(open(out + ".rc").read())
        recs = []
        for no, line in enumerate(open(out, "rb").read().split(b"\n"), 1):
            if not line:
                continue
            lines += 1
            try:
                o = json.loads(line.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as e:
                bad.append(f"{out}:{no}: not a UTF-8 JSON line: {e}")
                continue
            recs.append(o)
            t = o.get("type") if isinstance(o, dict) else None
            types[t] = types.get(t, 0) + 1
            val = by_type.get(t, v) if isinstance(t, str) else v
            for e in sorted(val.iter_errors(o), key=lambda e: str(list(e.absolute_path))):
                where = "/".join(str(p) for p in e.absolute_path)
                bad.append(f"{out}:{no}: {t} record, at /{where}: {e.message[:200]}")
        if not recs or recs[-1].get("type") != "summary":
            bad.append(f"{out}: the last line is not the summary")
        elif recs[-1].get("exit") != rc:
            bad.append(f"{out}: summary exit {recs[-1].get('exit')}, the run exited {rc}")
    for t in want.split(","):
        if t and t not in types:
            bad.append(f"no {t} record in any run")
    for b in bad[:60]:
        print("FAIL:", b)
    if len(bad) > 60:
        print(f"FAIL: ... {len(bad) - 60} more")
    print(f"{lines} lines of {len(outs)} runs checked; records: " +
          ", ".join(f"{k} {n}" for k, n in sorted(types.items(), key=str)))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
