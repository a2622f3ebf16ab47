/* e4dump timeline: a body file (bodyfile.h: The Sleuth Kit's 3.x layout,
 * as fls -m writes it) for mactime(1), one line per entry of the tree
 * with decrypted names, then one per entry deleted that the journal still
 * names (the entries undelete finds, from the same scan), marked
 * " (deleted)" as fls marks them.  Names are the display paths of ls -R
 * from the image root; an entry whose name no key decrypts keeps its
 * no-key name followed by " (encrypted, no key)".  A deleted entry's
 * times are those of the newest journal copy of its inode from while it
 * was in use (else the freed inode's, as fls shows them); its deletion
 * time (i_dtime), which the body file has no field for, is in --json's
 * records. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bodyfile.h"
#include "commands.h"
#include "dir.h"
#include "escape.h"
#include "inode.h"
#include "jsonout.h"
#include "record.h"
#include "session.h"
#include "undelete.h"
#include "walk.h"

struct timeline {
	struct session *s;
	const struct options *o;
	const char *start;    /* the PATH given */
	struct bodyfile body;
	struct e4_journal *j;
	size_t deleted;
	int nomem;
};

/* Each entry's record (record.h): the body line renders it, --json
 * prints it (ls's record: allocated, dtime and target are in it). */
static enum e4_walk_action entry(void *arg, const struct e4_walk_node *n)
{
	struct timeline *t = arg;
	struct record rec;
	json_object *o = NULL;

	if (!n->inode)
		return E4_WALK_CONTINUE; /* reported */
	record_init(&rec, "entry");
	rec.without_xattrs = !t->o->json;
	if (record_from_node(&rec, t->s, n)) {
		t->nomem = 1;
	} else if (!t->o->json) {
		bodyfile_record(&t->body, &rec);
	} else if ((o = record_json(&rec))) {
		json_object_object_add(o, "deleted", json_object_new_boolean(0));
		json_emit(o);
	} else {
		t->nomem = 1;
	}
	record_free(&rec);
	return E4_WALK_CONTINUE;
}

/* A deleted entry's record (record_from_deleted: as undelete's), as
 * --json prints it with timeline's own fields or as the body file's line.
 * 0, or -1 when out of memory. */
static int deleted_entry(struct timeline *t, const struct e4_deleted *d)
{
	struct record rec;
	json_object *o = NULL;
	int rc = -1;

	record_init(&rec, "entry");
	rec.without_xattrs = !t->o->json;
	if (record_from_deleted(&rec, t->s, t->j, d))
		goto out;
	rc = 0;
	if (!t->o->json) {
		bodyfile_record(&t->body, &rec);
		goto out;
	}
	if (!(o = record_json(&rec))) {
		rc = -1;
		goto out;
	}
	json_object_object_add(o, "deleted", json_object_new_boolean(1));
	/* where the times are from: the journal transaction of the copy, or
	 * null for the freed inode in the image (or none) */
	json_object_object_add(o, "inode_sequence", d->have_inode ?
			       json_object_new_int64(d->inode_sequence) : NULL);
	json_object_object_add(o, "dtime_sequence", d->have_dtime && d->dtime_sequence ?
			       json_object_new_int64(d->dtime_sequence) : NULL);
	json_object_object_add(o, "deleted_sequence", d->deleted_known ?
			       json_object_new_int64(d->deleted_sequence) : NULL);
	json_emit(o);
out:
	record_free(&rec);
	return rc;
}

static int one_deleted(void *arg, const struct e4_deleted *d)
{
	struct timeline *t = arg;

	/* an old name of a file that still is: not a deletion */
	if (d->still_in_use)
		return 0;
	t->deleted++;
	if (deleted_entry(t, d)) {
		t->nomem = 1;
		return 1;
	}
	return 0;
}

/* What a transaction's copies were, by the group layout (no scan):
 * inode-table blocks as ranges of inodes, bitmaps, superblocks, and the
 * others (directories, extent trees, data of data=journal). */
struct jsummary {
	size_t n[E4_BLOCK_JOURNAL + 1];
	json_object *ranges;            /* [[first, last], ...], merged */
	uint32_t first, last;           /* the range being merged */
	char text[400];
	size_t used, shown, more;
};

#define SHOWN_RANGES 16

static void range_done(struct jsummary *m)
{
	json_object *a;

	if (!m->first)
		return;
	a = json_object_new_array();
	json_object_array_add(a, json_object_new_int64(m->first));
	json_object_array_add(a, json_object_new_int64(m->last));
	json_object_array_add(m->ranges, a);
	if (m->shown < SHOWN_RANGES && m->used < sizeof(m->text))
		m->used += (size_t)snprintf(m->text + m->used, sizeof(m->text) - m->used,
					    "%s%" PRIu32 "..%" PRIu32, m->shown ? ", " : "",
					    m->first, m->last);
	else
		m->more++;
	m->shown++;
	m->first = 0;
}

static void journal_event(struct timeline *t, const struct e4_jtrans *tr)
{
	static const char *const kinds[] = { "other", "superblock", "block bitmap",
					     "inode bitmap", "inode table", "directory",
					     "extent tree", "journal" };
	struct jsummary m;
	struct e4_timestamp when = { (int64_t)tr->commit_sec, tr->commit_nsec };
	char name[600];
	size_t at;

	memset(&m, 0, sizeof(m));
	m.ranges = json_object_new_array();
	/* in the order of the descriptors' tags: adjacent ones merged */
	for (size_t k = 0; k < tr->ncopies; k++) {
		const struct e4_jcopy *c = e4_journal_copy(t->j, tr->first_copy + k);
		struct e4_block_class bc;

		e4_fs_block_layout(t->s->fs, c->fs_block, &bc);
		m.n[bc.kind <= E4_BLOCK_JOURNAL ? bc.kind : E4_BLOCK_OTHER]++;
		if (bc.kind != E4_BLOCK_INODE_TABLE)
			continue;
		if (m.first && bc.first_ino == m.last + 1) {
			m.last = bc.last_ino;
			continue;
		}
		range_done(&m);
		m.first = bc.first_ino;
		m.last = bc.last_ino;
	}
	range_done(&m);
	at = (size_t)snprintf(name, sizeof(name), "<journal transaction %" PRIu32
			      " committed: %zu blocks", tr->sequence, tr->ncopies);
	if (m.shown && at < sizeof(name))
		at += (size_t)snprintf(name + at, sizeof(name) - at, "; inodes %s%s", m.text,
				       m.more ? ", ..." : "");
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (k != E4_BLOCK_INODE_TABLE && m.n[k] && at < sizeof(name))
			at += (size_t)snprintf(name + at, sizeof(name) - at, "; %zu %s", m.n[k],
					       kinds[k]);
	if (tr->revokes && at < sizeof(name))
		at += (size_t)snprintf(name + at, sizeof(name) - at, "; %u revoked", tr->revokes);
	if (at < sizeof(name))
		snprintf(name + at, sizeof(name) - at, ">");
	if (!t->o->json) {
		json_object_put(m.ranges);
		bodyfile_event(&t->body, name, &when);
		return;
	}
	{
		json_object *o = json_record("event"), *n = json_object_new_object();

		json_object_object_add(o, "event", json_object_new_string("journal commit"));
		json_object_object_add(o, "sequence", json_object_new_int64(tr->sequence));
		json_object_object_add(o, "time", json_time(&when));
		json_object_object_add(o, "blocks", json_object_new_int64((int64_t)tr->ncopies));
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (m.n[k])
				json_object_object_add(n, kinds[k],
						       json_object_new_int64((int64_t)m.n[k]));
		json_object_object_add(o, "block_kinds", n);
		json_object_object_add(o, "inode_ranges", m.ranges);
		json_object_object_add(o, "revoked", json_object_new_int64(tr->revokes));
		json_object_object_add(o, "name", json_object_new_string(name));
		json_emit(o);
	}
}

/* --journal-events: every committed transaction with a commit time */
static void journal_events(struct timeline *t)
{
	for (size_t i = 0; i < e4_journal_ntrans(t->j); i++) {
		const struct e4_jtrans *tr = e4_journal_trans(t->j, i);

		if (tr->committed && tr->commit_sec)
			journal_event(t, tr);
	}
}

int cmd_timeline(const struct options *o, struct report *r)
{
	struct session s;
	struct timeline t = { &s, o, o->n_args > 1 ? o->args[1] : "/", { 0 }, NULL, 0, 0 };
	struct e4_walk_options wo = { 1, 1, 0, 0 };
	struct e4_walk_visitor v = { .entry = entry };
	uint32_t ino;
	int rc = session_open(&s, o, r, 1);

	if (rc) {
		if (o->json)
			json_emit(json_summary("timeline", r, rc));
		return rc;
	}
	bodyfile_init(&t.body, stdout, o->prefix, o->nanoseconds);
	if (e4_path_lookup(s.fs, t.start, &ino) == E4_OK) {
		e4_walk(s.fs, ino, t.start, &wo, &v, &t, NULL);
		if (t.nomem)
			report_error(r, "timeline: out of memory writing records");
		t.nomem = 0;
		if ((!o->no_deleted || o->journal_events) && e4_fs_journal(s.fs, &t.j) == E4_OK) {
			if (!o->no_deleted &&
			    (e4_undelete_scan(s.fs, t.j, ino, one_deleted, &t) == E4_NOMEM || t.nomem))
				report_error(r, "timeline: out of memory listing deleted entries");
			if (o->journal_events)
				journal_events(&t);
			e4_journal_free(t.j);
		}
	}
	rc = session_status(&s);
	session_close(&s);
	if (o->json) {
		json_object *sum = json_summary("timeline", r, rc);

		json_object_object_add(sum, "deleted", json_object_new_int64((int64_t)t.deleted));
		json_emit(sum);
	}
	return finish_stdout(rc, r);
}
