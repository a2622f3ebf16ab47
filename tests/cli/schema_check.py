#!/usr/bin/env python3
"""Validate e4dump --json output against the shipped schema.

usage: schema_check.py SCHEMA TYPES OUT...
       schema_check.py --documents SCHEMA TYPES DIR[=OUT]...

Each OUT is the standard output of one e4dump run with --json, and
OUT.rc holds its exit status.  Every line must be a JSON object that
validates against SCHEMA (jsonschema's Draft202012Validator, with format
checking), and the last line must be the run's summary, whose "exit" is
the exit status the run had; each record type of TYPES (comma-separated)
must be among them.  Prints one line per failure and a count of
the lines checked; exit 1 when anything failed.

With --documents, every file extract/undelete --keep-locked and unlock-kept
write beside what they kept (NAME.e4dump.json, %e4dump-dir.json,
%e4dump-export.json: one JSON document each) under each DIR validates
against SCHEMA as such a line does, and is of the type its name says
(locked, kept_directory, export); with =OUT (the --json output of the run
that wrote DIR), each sidecar is the record of its entry that run printed
(the record of the same output_path: every field of the record vocabulary
the same, but type).
"""
import json
import os
import sys

import jsonschema
from jsonschema import Draft202012Validator


def validators(schema_path):
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
    return schema, v, by_type


def errors(v, by_type, o):
    t = o.get("type") if isinstance(o, dict) else None
    val = by_type.get(t, v) if isinstance(t, str) else v
    for e in sorted(val.iter_errors(o), key=lambda e: str(list(e.absolute_path))):
        where = "/".join(str(p) for p in e.absolute_path)
        yield f"{t} record, at /{where}: {e.message[:200]}"


def main(schema_path, want, outs):
    schema, v, by_type = validators(schema_path)
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
            bad += [f"{out}:{no}: {e}" for e in errors(v, by_type, o)]
        if not recs or recs[-1].get("type") != "summary":
            bad.append(f"{out}: the last line is not the summary")
        elif recs[-1].get("exit") != rc:
            bad.append(f"{out}: summary exit {recs[-1].get('exit')}, the run exited {rc}")
    for t in want.split(","):
        if t and t not in types:
            bad.append(f"no {t} record in any run")
    return report(bad, f"{lines} lines of {len(outs)} runs checked", types)


def report(bad, what, types):
    for b in bad[:60]:
        print("FAIL:", b)
    if len(bad) > 60:
        print(f"FAIL: ... {len(bad) - 60} more")
    print(f"{what}; records: " +
          ", ".join(f"{k} {n}" for k, n in sorted(types.items(), key=str)))
    return 1 if bad else 0


def kind(name):
    if name == "%e4dump-export.json":
        return "export"
    if name == "%e4dump-dir.json":
        return "kept_directory"
    if name.endswith(".e4dump.json"):
        return "locked"
    return None


def documents(schema_path, want, dirs):
    schema, v, by_type = validators(schema_path)
    vocabulary = set(schema["$defs"]["record"]["properties"]) - {"type"}
    bad, n, types, compared = [], 0, {}, 0
    for arg in dirs:
        top, _, out = arg.partition("=")
        printed = {}
        if out:
            for line in open(out, encoding="utf-8"):
                o = json.loads(line)
                if "output_path" in o:
                    printed[o["output_path"]] = o
        sides = 0
        for d, _, files in os.walk(top):
            for f in files:
                k = kind(f)
                if not k:
                    continue
                p = os.path.join(d, f)
                n += 1
                try:
                    o = json.load(open(p, encoding="utf-8"))
                except (UnicodeDecodeError, ValueError) as e:
                    bad.append(f"{p}: not a UTF-8 JSON document: {e}")
                    continue
                t = o.get("type") if isinstance(o, dict) else None
                types[t] = types.get(t, 0) + 1
                if t != k:
                    bad.append(f"{p}: type {t!r}, its name says {k!r}")
                bad += [f"{p}: {e}" for e in errors(v, by_type, o)]
                if out and t == "locked":
                    sides += 1
                    r = printed.get(o.get("output_path"))
                    if r is None:
                        bad.append(f"{p}: no record of its output_path {o.get('output_path')!r} in {out}")
                        continue
                    for key in sorted(vocabulary & (set(o) | set(r))):
                        if o.get(key) != r.get(key):
                            bad.append(f"{p}: {key} {o.get(key)!r:.80}, its record says {r.get(key)!r:.80}")
        compared += sides
    for t in want.split(","):
        if t and t not in types:
            bad.append(f"no {t} document in any of {dirs}")
    if any("=" in a for a in dirs) and not compared:
        bad.append("no sidecar was compared with the record its run printed")
    return report(bad, f"{n} documents of {len(dirs)} outputs checked, "
                  f"{compared} sidecars compared with their records", types)


if __name__ == "__main__":
    if len(sys.argv) > 4 and sys.argv[1] == "--documents":
        sys.exit(documents(sys.argv[2], sys.argv[3], sys.argv[4:]))
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
