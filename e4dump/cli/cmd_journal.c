/* e4dump journal: the jbd2 journal of an image as evidence: its
 * superblock, and every transaction still in it (live or past the live
 * log), with the filesystem blocks each holds copies of and what the live
 * image says those blocks are. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/printbuf.h>
#include "commands.h"
#include "journal.h"
#include "jsonout.h"
#include "session.h"

struct jview {
	struct e4_journal *j;
	uint64_t *blocks;               /* distinct copied blocks, sorted */
	size_t nblocks;
	struct e4_blockmap_index *cls;
};

static int jview_open(struct session *s, struct jview *v)
{
	memset(v, 0, sizeof(*v));
	switch (e4_fs_journal(s->fs, &v->j)) {
	case E4_OK:
		break;
	case E4_NOT_FOUND:
		report_error(s->report, "%s: the filesystem has no journal", s->image);
		return -1;
	default:
		return -1;      /* reported */
	}
	if (e4_journal_blocks(v->j, &v->blocks, &v->nblocks) != E4_OK)
		return -1;
	return e4_fs_classify_blocks(s->fs, v->blocks, v->nblocks, &v->cls) == E4_OK ? 0 : -1;
}

static void jview_close(struct jview *v)
{
	e4_blockmap_index_free(v->cls);
	free(v->blocks);
	e4_journal_free(v->j);
}

static const struct e4_block_class *class_of(const struct jview *v, uint64_t blk)
{
	size_t lo = 0, hi = v->nblocks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v->blocks[mid] < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return e4_blockmap_index_get(v->cls, lo);
}

static void features(uint32_t incompat, uint32_t compat, char *out, size_t size)
{
	static const struct { uint32_t bit; const char *name; } f[] = {
		{ E4_JBD2_INCOMPAT_REVOKE, "revoke" },
		{ E4_JBD2_INCOMPAT_64BIT, "64bit" },
		{ E4_JBD2_INCOMPAT_ASYNC_COMMIT, "async_commit" },
		{ E4_JBD2_INCOMPAT_CSUM_V2, "csum_v2" },
		{ E4_JBD2_INCOMPAT_CSUM_V3, "csum_v3" },
		{ E4_JBD2_INCOMPAT_FAST_COMMIT, "fast_commit" },
	};
	size_t used = 0;

	out[0] = 0;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (incompat & f[i].bit)
			used += (size_t)snprintf(out + used, size - used, "%s%s",
						 used ? " " : "", f[i].name);
	if (compat & 1)     /* JBD2_FEATURE_COMPAT_CHECKSUM (v1) */
		used += (size_t)snprintf(out + used, size - used, "%schecksum_v1",
					 used ? " " : "");
	if (!used)
		snprintf(out, size, "(none)");
}

static const char *csum_word(int c)
{
	return c > 0 ? "ok" : c < 0 ? "BAD" : "none";
}

static void time_text(uint64_t sec, uint32_t nsec, char *out, size_t size)
{
	time_t t = (time_t)sec;
	struct tm tm;

	if (!sec || !gmtime_r(&t, &tm)) {
		snprintf(out, size, "-");
		return;
	}
	snprintf(out, size, "%04d-%02d-%02dT%02d:%02d:%02d.%09" PRIu32 "Z",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, nsec);
}

static void class_text(const struct e4_block_class *c, char *out, size_t size)
{
	switch (c->kind) {
	case E4_BLOCK_INODE_TABLE:
		snprintf(out, size, "inode table, group %" PRIu32 ", inodes %" PRIu32
			 "..%" PRIu32, c->group, c->first_ino, c->last_ino);
		break;
	case E4_BLOCK_BLOCK_BITMAP:
	case E4_BLOCK_INODE_BITMAP:
	case E4_BLOCK_SUPER:
		snprintf(out, size, "%s, group %" PRIu32, e4_block_kind_name(c->kind),
			 c->group);
		break;
	case E4_BLOCK_DIRECTORY:
		snprintf(out, size, "directory <%" PRIu32 ">, block %" PRIu64,
			 c->owner, c->lblk);
		break;
	default:
		snprintf(out, size, "%s", e4_block_kind_name(c->kind));
	}
}

static json_object *class_json(const struct e4_block_class *c)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "kind", json_object_new_string(e4_block_kind_name(c->kind)));
	switch (c->kind) {
	case E4_BLOCK_INODE_TABLE:
		json_object_object_add(o, "first_inode", json_object_new_int64(c->first_ino));
		json_object_object_add(o, "last_inode", json_object_new_int64(c->last_ino));
		/* fall through */
	case E4_BLOCK_BLOCK_BITMAP:
	case E4_BLOCK_INODE_BITMAP:
	case E4_BLOCK_SUPER:
		json_object_object_add(o, "group", json_object_new_int64(c->group));
		break;
	case E4_BLOCK_DIRECTORY:
		json_object_object_add(o, "owner", json_object_new_int64(c->owner));
		json_object_object_add(o, "lblk", json_object_new_int64((int64_t)c->lblk));
		break;
	default:
		break;
	}
	return o;
}

static void print_sb_text(const struct session *s, const struct e4_journal *j,
			  unsigned int overwritten, unsigned int bad)
{
	const struct e4_jbd2_sb *sb = e4_journal_sb(j);
	size_t nt = e4_journal_ntrans(j);
	char f[128];

	features(sb->incompat, sb->compat, f, sizeof(f));
	printf("journal: inode %" PRIu32 ", %" PRIu32 " blocks of %" PRIu32
	       " bytes, log blocks %" PRIu32 "..%" PRIu32 "\n",
	       e4_fs_journal_inode(s->fs), sb->maxlen, sb->block_size,
	       sb->first, sb->log_end - 1);
	printf("superblock: version %u, features: %s, superblock checksum %s\n",
	       sb->version, f, csum_word(e4_journal_sb_csum(j)));
	printf("s_sequence %" PRIu32 ", s_start %" PRIu32 "%s\n", sb->sequence,
	       sb->start, sb->start ? " (the log holds transactions to replay)" :
				      " (clean: every transaction below is past the live log)");
	printf("transactions found: %zu", nt);
	if (nt)
		printf(" (sequences %" PRIu32 "..%" PRIu32 ")",
		       e4_journal_trans(j, 0)->sequence,
		       e4_journal_trans(j, nt - 1)->sequence);
	printf(", block copies: %zu, overwritten: %u, bad checksum: %u, unreadable journal blocks: %u\n",
	       e4_journal_ncopies(j), overwritten, bad, e4_journal_unreadable(j));
}

static void print_trans_text(const struct jview *v, const struct e4_jtrans *t,
			     size_t ti)
{
	char when[48], what[96];

	time_text(t->commit_sec, t->commit_nsec, when, sizeof(when));
	printf("transaction %" PRIu32 ": %s, commit time %s", t->sequence,
	       t->committed ? "committed" : "no commit block", when);
	if (t->commit_csum)
		printf(", commit checksum %s", csum_word(t->commit_csum));
	printf(", %s", t->live ? "live" : "past the live log");
	if (t->overwritten || t->bad_tag_csum || t->bad_descriptors)
		printf(" (%u copies overwritten, %u bad checksums, %u bad descriptor blocks)",
		       t->overwritten, t->bad_tag_csum, t->bad_descriptors);
	printf("\n");
	for (size_t k = t->first_copy; k < t->first_copy + t->ncopies; k++) {
		const struct e4_jcopy *c = e4_journal_copy(v->j, k);

		class_text(class_of(v, c->fs_block), what, sizeof(what));
		printf("  block %" PRIu64 " (journal block %" PRIu32 ", %s): %s\n",
		       c->fs_block, c->jblock, e4_jcopy_trust_name(c->trust), what);
	}
	(void)ti;
	for (size_t r = t->first_revoke; r < t->first_revoke + t->revokes; r++)
		printf("  revoked block %" PRIu64 "\n", e4_journal_revoke(v->j, r)->fs_block);
}

/* A transaction's revoked blocks, written as a JSON array straight from
 * the journal's records when the record is serialized: one object, not
 * one per block (a log of revoke records would otherwise take tens of
 * times its size). */
struct revoked_list {
	const struct e4_journal *j;
	size_t first, n;
};

static int revoked_text(json_object *o, struct printbuf *pb, int level, int flags)
{
	const struct revoked_list *r = json_object_get_userdata(o);
	char num[32];

	(void)level, (void)flags;
	printbuf_memappend(pb, "[", 1);
	for (size_t i = 0; i < r->n; i++) {
		int len = snprintf(num, sizeof(num), "%s%" PRIu64, i ? "," : "",
				   e4_journal_revoke(r->j, r->first + i)->fs_block);

		printbuf_memappend(pb, num, len);
	}
	printbuf_memappend(pb, "]", 1);
	return 0;
}

static void free_revoked(json_object *o, void *p)
{
	(void)o;
	free(p);
}

static json_object *revoked_json(const struct e4_journal *j, const struct e4_jtrans *t)
{
	json_object *a = json_object_new_array();
	struct revoked_list *r = malloc(sizeof(*r));

	if (!a || !r) {
		free(r);
		return a;
	}
	r->j = j;
	r->first = t->first_revoke;
	r->n = t->revokes;
	json_object_set_serializer(a, revoked_text, r, free_revoked);
	return a;
}

static void emit_json(const struct session *s, const struct jview *v)
{
	const struct e4_jbd2_sb *sb = e4_journal_sb(v->j);
	json_object *o = json_record("journal");
	char f[128];

	features(sb->incompat, sb->compat, f, sizeof(f));
	json_object_object_add(o, "inode", json_object_new_int64(e4_fs_journal_inode(s->fs)));
	json_object_object_add(o, "version", json_object_new_int(sb->version));
	json_object_object_add(o, "block_size", json_object_new_int64(sb->block_size));
	json_object_object_add(o, "blocks", json_object_new_int64(sb->maxlen));
	json_object_object_add(o, "first", json_object_new_int64(sb->first));
	json_object_object_add(o, "log_end", json_object_new_int64(sb->log_end));
	json_object_object_add(o, "sequence", json_object_new_int64(sb->sequence));
	json_object_object_add(o, "start", json_object_new_int64(sb->start));
	json_object_object_add(o, "features", json_object_new_string(f));
	json_object_object_add(o, "superblock_checksum",
			       json_object_new_string(csum_word(e4_journal_sb_csum(v->j))));
	json_object_object_add(o, "transactions", json_object_new_int64((int64_t)e4_journal_ntrans(v->j)));
	json_object_object_add(o, "copies", json_object_new_int64((int64_t)e4_journal_ncopies(v->j)));
	json_object_object_add(o, "unreadable_blocks", json_object_new_int64(e4_journal_unreadable(v->j)));
	json_emit(o);
	for (size_t ti = 0; ti < e4_journal_ntrans(v->j); ti++) {
		const struct e4_jtrans *t = e4_journal_trans(v->j, ti);
		json_object *a = json_object_new_array();
		char when[48];

		o = json_record("transaction");
		json_object_object_add(o, "sequence", json_object_new_int64(t->sequence));
		json_object_object_add(o, "committed", json_object_new_boolean(t->committed));
		time_text(t->commit_sec, t->commit_nsec, when, sizeof(when));
		json_object_object_add(o, "commit_time", t->committed && t->commit_sec ?
				       json_object_new_string(when) : NULL);
		json_object_object_add(o, "commit_checksum",
				       json_object_new_string(csum_word(t->commit_csum)));
		json_object_object_add(o, "live", json_object_new_boolean(t->live));
		json_object_object_add(o, "overwritten", json_object_new_int64(t->overwritten));
		json_object_object_add(o, "bad_checksums", json_object_new_int64(t->bad_tag_csum));
		json_object_object_add(o, "bad_descriptor_blocks", json_object_new_int64(t->bad_descriptors));
		for (size_t k = t->first_copy; k < t->first_copy + t->ncopies; k++) {
			const struct e4_jcopy *c = e4_journal_copy(v->j, k);
			json_object *b = class_json(class_of(v, c->fs_block));

			json_object_object_add(b, "block", json_object_new_int64((int64_t)c->fs_block));
			json_object_object_add(b, "journal_block", json_object_new_int64(c->jblock));
			json_object_object_add(b, "trust",
					       json_object_new_string(e4_jcopy_trust_name(c->trust)));
			json_object_array_add(a, b);
		}
		json_object_object_add(o, "blocks", a);
		json_object_object_add(o, "revoked", revoked_json(v->j, t));
		json_emit(o);
	}
}

int cmd_journal(const struct options *o, struct report *r)
{
	struct session s;
	struct jview v;
	int rc = session_open(&s, o, r, 1);

	if (!rc && jview_open(&s, &v)) {
		jview_close(&v);
		session_close(&s);
		rc = EXIT_FATAL;
	}
	if (rc)
		return json_finish(o->json, "journal", r, rc);
	if (o->json) {
		emit_json(&s, &v);
	} else {
		unsigned int over = 0, bad = 0;

		for (size_t i = 0; i < e4_journal_ntrans(v.j); i++) {
			over += e4_journal_trans(v.j, i)->overwritten;
			bad += e4_journal_trans(v.j, i)->bad_tag_csum;
		}
		print_sb_text(&s, v.j, over, bad);
		for (size_t i = 0; i < e4_journal_ntrans(v.j); i++)
			print_trans_text(&v, e4_journal_trans(v.j, i), i);
	}
	rc = session_status(&s);
	jview_close(&v);
	session_close(&s);
	return json_finish(o->json, "journal", r, rc);
}
