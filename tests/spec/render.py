#!/usr/bin/env python3
"""The spec renders as Markdown (python-markdown, Debian's python3-markdown,
with tables, fenced code and toc): every table becomes an HTML table and
each of its rows has the header's number of cells; every link to an
anchor (#...) names a heading's id and every relative link an existing
file; every section reference (§N or §N.M) names a section that exists.
usage: render.py SPEC"""
import html.parser
import os
import re
import sys

import markdown


class Ids(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.tables = set(), 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "table":
            self.tables += 1


def cells(row):
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return len(re.split(r"(?<!\\)\|", row))


def main():
    path = sys.argv[1]
    text = open(path, encoding="utf-8").read()
    bad = []
    # tables outside code blocks, as blocks of lines starting with '|'
    prose, fence = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
            prose.append("")
            continue
        prose.append("" if fence else line)
    tables, i = [], 0
    while i < len(prose):
        if prose[i].startswith("|"):
            j = i
            while j < len(prose) and prose[j].startswith("|"):
                j += 1
            tables.append((i + 1, prose[i:j]))
            i = j
        else:
            i += 1
    for lineno, rows in tables:
        if len(rows) < 2 or not re.fullmatch(r"\|?[\s:|-]+\|?", rows[1].strip()):
            bad.append("line %d: a table without a header separator" % lineno)
            continue
        n = cells(rows[0])
        for k, r in enumerate(rows):
            if cells(r) != n:
                bad.append("line %d: %d cells, the header has %d" % (lineno + k, cells(r), n))
    md = markdown.Markdown(extensions=["tables", "fenced_code", "toc"])
    out = md.convert(text)
    p = Ids()
    p.feed(out)
    if p.tables != len(tables):
        bad.append("%d tables in the text, %d rendered" % (len(tables), p.tables))
    for m in re.finditer(r"\]\(([^)\s]+)\)", "\n".join(prose)):
        target = m.group(1)
        if target.startswith("#"):
            if target[1:] not in p.ids:
                bad.append("link %s: no such heading" % target)
        elif not re.match(r"[a-z]+:", target):
            f = os.path.join(os.path.dirname(path), target.split("#")[0])
            if not os.path.exists(f):
                bad.append("link %s: no such file" % target)
    sections = set(re.findall(r"^#{2,4} (\d+(?:\.\d+)*)\.? ", text, re.M))
    for m in re.finditer(r"§(\d+(?:\.\d+)*)", "\n".join(prose)):
        if m.group(1) not in sections:
            bad.append("reference §%s: no such section" % m.group(1))
    for b in bad:
        print("FAIL:", b)
    print("%d tables, %d links, %d section references checked; %d problems" % (
        len(tables), len(re.findall(r"\]\(", "\n".join(prose))),
        len(re.findall("§", "\n".join(prose))), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
