#!/usr/bin/env python3
"""What undelete must make of the journal copies hostile_journal.py
writes (the expected values are facts of the crafted images, not the
tool's): usage: undelete_hostile_check.py MODE OUT.json STDERR OUTDIR"""
import json, os, sys
mode, jpath, errpath, outdir = sys.argv[1:5]
raw = open(jpath, 'rb').read()
fails = []
def check(cond, what):
    if not cond:
        fails.append(what)
try:
    recs = [json.loads(l) for l in raw.decode('utf-8').splitlines()]
except (UnicodeDecodeError, ValueError) as e:
    print(f'{mode}: the JSON Lines are not valid UTF-8 JSON: {e}')
    sys.exit(1)
err = open(errpath, errors='replace').read()
deleted = [r for r in recs if r.get('type') == 'deleted']
if mode == 'dircycle':
    # a/ (1000) names b/ (1001) and b/ names a/: each directory once
    for ino in (1000, 1001):
        n = sum(1 for r in deleted if r['inode'] == ino)
        check(n == 1, f'directory {ino} listed {n} times, want once')
    check('second link to a directory already entered' in err or
          'directory loop' in err, 'the second names are not reported')
elif mode == 'samename':
    # two deleted directories named d, holding fa and fb
    found = {}
    for top, dirs, files in os.walk(outdir):
        for f in files:
            found[f] = top
    check('fa' in found and 'fb' in found, f'fa and fb not both written: {found}')
    check(found.get('fa') != found.get('fb'),
          f'fa and fb written in one directory {found.get("fa")}: two directories merged')
    check(len([r for r in deleted if r['file_type'] == 'directory']) == 2, 'not two directories')
elif mode == 'reserved':
    # the root (2), resize inode (7), journal (8): never deleted files
    for r in deleted:
        check(r['inode'] >= 11, f'reserved inode {r["inode"]} reported as {r["verdict"]} '
              f'at {r["path"]}')
    g = [r for r in deleted if r['inode'] == 12]
    check(len(g) == 1 and g[0]['verdict'] == 'still in use',
          f'live file 12 under its old name: {[(r["path"], r["verdict"]) for r in g]}, '
          'want one, still in use')
    check(not os.path.lexists(os.path.join(outdir, 'gone')), 'the live file was written')
elif mode == 'badlink':
    # target bytes ff fe 'abc': shown as e4_escape shows them
    l = [r for r in deleted if r['inode'] == 1004]
    check(len(l) == 1 and l[0].get('target') == '\\xff\\xfeabc',
          f'target {[r.get("target") for r in l]}, want the escaped form \\\\xff\\\\xfeabc')
    p = os.path.join(os.fsencode(outdir), b'l')
    check(os.path.islink(p) and os.readlink(p) == b'\xff\xfeabc',
          'the symlink written does not hold the target bytes')
elif mode == 'aclhigh':
    # a fast symlink (its only block the xattr block, numbered by the
    # high 16 bits): the target is in i_block
    l = [r for r in deleted if r['inode'] == 1004]
    check(len(l) == 1 and l[0].get('target') == 'hello' and l[0]['verdict'] == 'exact',
          f'{[(r.get("target"), r["verdict"], r["reasons"]) for r in l]}, want hello, exact')
elif mode == 'revoked':
    # the copy of the symlink's block was revoked before the deletion:
    # jbd2 would not replay it, the block is the live one
    l = [r for r in deleted if r['inode'] == 1004]
    check(len(l) == 1 and l[0].get('target') == 'new',
          f'{[(r.get("target"), r["verdict"], r["reasons"]) for r in l]}, want new (the live '
          'block: the copy holding old was revoked)')
elif mode == 'slash':
    # deleted "a/b" (1003), "p/q" (1000) holding "r/s" (1002): each name
    # escaped as the walker escapes it (a '/' inside a name is \x2f); the
    # freed inode 1006 without a name: /$OrphanFiles/OrphanFile-1006, its
    # i_dtime 1600000000 (the live table's), not allocated.  The same
    # paths in undelete's JSON and manifest and in timeline's JSON and
    # body file (slash.tsv, slash.tl, slash.body next to OUT.json)
    want = {1003: '/a\\x2fb', 1000: '/p\\x2fq', 1002: '/p\\x2fq/r\\x2fs',
            1006: '/$OrphanFiles/OrphanFile-1006'}
    d = os.path.dirname(jpath)
    got = {r['inode']: r['path'] for r in deleted}
    check(got == want, f'undelete --json paths {got}, want {want}')
    o = [r for r in deleted if r['inode'] == 1006]
    check(len(o) == 1 and 'name_state' not in o[0] and
          o[0].get('dtime') == '2020-09-13T12:26:40.000000000Z' and o[0].get('allocated') is False,
          f'the orphan: {o}, want no name_state, dtime 2020-09-13T12:26:40Z, not allocated')
    rows = {}
    with open(os.path.join(d, 'slash.tsv')) as f:
        head = f.readline().rstrip('\n').split('\t')
        for line in f:
            row = dict(zip(head, line.rstrip('\n').split('\t')))
            rows[int(row['inode'])] = row['path']
    check(rows == {k: v for k, v in want.items() if k != 1000},
          f'undelete --manifest paths {rows}, want those of the files')
    tl = [json.loads(l) for l in open(os.path.join(d, 'slash.tl'))]
    tg = {r['inode']: r['path'] for r in tl if r.get('type') == 'entry' and r.get('deleted')}
    check(tg == want, f'timeline --json deleted paths {tg}, want {want}')
    tg = [r for r in tl if r.get('inode') == 1006 and r.get('deleted')]
    check(len(tg) == 1 and tg[0].get('dtime') == o[0].get('dtime') if o else False,
          f'timeline --json: the orphan {tg}, dtime not undelete\'s')
    body = {}
    for line in open(os.path.join(d, 'slash.body')):
        f = line.rstrip('\n').split('|')
        if f[1].endswith(' (deleted)'):
            body[int(f[2])] = f[1][:-len(' (deleted)')]
    check(body == want, f'timeline body file deleted names {body}, want {want}')
else:
    sys.exit(f'unknown mode {mode}')
for f in fails:
    print(f'{mode}: {f}')
sys.exit(1 if fails else 0)
