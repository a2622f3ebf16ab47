#include <stdlib.h>
#include <string.h>
#include "blockset.h"
#include "extent.h"
#include "byteorder.h"

void e4_extent_node_entry(const struct e4_extent_node *node, unsigned int i,
			  struct e4_extent *out)
{
	const uint8_t *e = node->buf + E4_EXTENT_HEADER_SIZE +
			   (size_t)i * E4_EXTENT_ENTRY_SIZE;

	out->lblk = e4_le32(e);
	if (node->depth == 0) {
		/* struct ext4_extent: ee_block, ee_len, ee_start_hi, ee_start_lo */
		unsigned int len = e4_le16(e + 4);

		out->unwritten = len > E4_EXTENT_INIT_MAX_LEN;
		out->len = out->unwritten ? len - E4_EXTENT_INIT_MAX_LEN : len;
		out->pblk = (uint64_t)e4_le16(e + 6) << 32 | e4_le32(e + 8);
	} else {
		/* struct ext4_extent_idx: ei_block, ei_leaf_lo, ei_leaf_hi */
		out->unwritten = 0;
		out->len = 0;
		out->pblk = (uint64_t)e4_le16(e + 8) << 32 | e4_le32(e + 4);
	}
}

static int block_ok(const struct e4_block_range *r, uint64_t pblk,
		    uint64_t count)
{
	return pblk > r->first_data_block && pblk + count >= pblk &&
	       pblk + count <= r->blocks;
}

enum e4_status e4_extent_node_check(const uint8_t *buf, size_t size,
				    int depth, uint64_t lblk_start,
				    uint64_t lblk_end,
				    const struct e4_block_range *range,
				    struct e4_extent_node *node,
				    const char **why)
{
	unsigned int max, entries, hdepth;
	uint64_t next = lblk_start;

	*why = NULL;
	if (size < E4_EXTENT_HEADER_SIZE) {
		*why = "extent node too small";
		return E4_CORRUPT;
	}
	if (e4_le16(buf) != E4_EXTENT_MAGIC) {
		*why = "bad extent header magic";
		return E4_CORRUPT;
	}
	entries = e4_le16(buf + 2);
	max = e4_le16(buf + 4);
	hdepth = e4_le16(buf + 6);
	if (max > (size - E4_EXTENT_HEADER_SIZE) / E4_EXTENT_ENTRY_SIZE) {
		*why = "eh_max larger than the node";
		return E4_CORRUPT;
	}
	if (entries > max) {
		*why = "eh_entries above eh_max";
		return E4_CORRUPT;
	}
	if (depth < 0 ? hdepth > E4_EXTENT_MAX_DEPTH : hdepth != (unsigned int)depth) {
		*why = depth < 0 ? "extent tree deeper than 5" :
				   "extent node depth does not match its parent";
		return E4_CORRUPT;
	}
	if (entries == 0 && hdepth > 0) {
		*why = "index node without entries";
		return E4_CORRUPT;
	}
	node->buf = buf;
	node->depth = hdepth;
	node->entries = entries;
	for (unsigned int i = 0; i < entries; i++) {
		struct e4_extent e;

		e4_extent_node_entry(node, i, &e);
		if (e.lblk < next || (i == 0 && depth >= 0 && e.lblk != lblk_start)) {
			*why = i ? "extents overlap or go backwards" :
				   "first entry does not start where its index says";
			return E4_CORRUPT;
		}
		if (e.lblk >= lblk_end) {
			*why = "entry beyond the range its index covers";
			return E4_CORRUPT;
		}
		if (hdepth == 0) {
			if (e.len == 0) {
				*why = "extent of length 0";
				return E4_CORRUPT;
			}
			if ((uint64_t)e.lblk + e.len > lblk_end) {
				*why = "extent runs past the range its index covers";
				return E4_CORRUPT;
			}
			next = (uint64_t)e.lblk + e.len;
		} else {
			next = (uint64_t)e.lblk + 1;
		}
		if (!block_ok(range, e.pblk, hdepth ? 1 : e.len)) {
			*why = "block outside the filesystem";
			return E4_CORRUPT;
		}
	}
	return E4_OK;
}

struct level {
	struct e4_extent_node node;
	unsigned int next;      /* next entry */
	uint64_t end;           /* the range its parent gave it ends here */
	uint8_t *buf;           /* NULL for the root */
};

enum e4_status e4_extent_walk(const uint8_t root[E4_EXTENT_ROOT_SIZE],
			      size_t block_size,
			      const struct e4_block_range *range,
			      uint64_t lblk_end, e4_read_block_fn read,
			      e4_extent_fn fn, void *arg, const char **why,
			      uint64_t *bad_block)
{
	struct level lv[E4_EXTENT_MAX_DEPTH + 1];
	struct e4_blockset seen = { NULL, NULL, 0, 0 };
	enum e4_status st = E4_OK;
	int top = 0;

	*why = NULL;
	*bad_block = 0;
	memset(lv, 0, sizeof(lv));
	st = e4_extent_node_check(root, E4_EXTENT_ROOT_SIZE, -1, 0,
				  (uint64_t)1 << 32, range, &lv[0].node, why);
	if (st != E4_OK)
		return st;
	lv[0].end = (uint64_t)1 << 32;
	while (top >= 0 && st == E4_OK) {
		struct level *l = &lv[top], *c;
		struct e4_extent e, after;
		uint64_t cend;

		if (l->next == l->node.entries) {
			top--;
			continue;
		}
		e4_extent_node_entry(&l->node, l->next++, &e);
		if (e.lblk >= lblk_end)
			break; /* entries are ordered: nothing more below */
		if (l->node.depth == 0) {
			if (fn(arg, &e))
				st = E4_STOPPED;
			continue;
		}
		cend = l->end;
		if (l->next < l->node.entries) {
			e4_extent_node_entry(&l->node, l->next, &after);
			cend = after.lblk;
		}
		*bad_block = e.pblk;
		switch (e4_blockset_add(&seen, e.pblk)) {
		case 0:
			*why = "tree block referenced twice";
			st = E4_CORRUPT;
			continue;
		case -1:
			st = E4_NOMEM;
			continue;
		}
		c = &lv[top + 1];
		if (!c->buf && !(c->buf = malloc(block_size))) {
			st = E4_NOMEM;
			continue;
		}
		st = read(arg, e.pblk, c->buf);
		if (st != E4_OK) {
			*why = "tree block cannot be read";
			continue;
		}
		st = e4_extent_node_check(c->buf, block_size,
					  (int)l->node.depth - 1, e.lblk, cend,
					  range, &c->node, why);
		if (st != E4_OK)
			continue;
		*bad_block = 0;
		c->next = 0;
		c->end = cend;
		top++;
	}
	for (int i = 0; i <= E4_EXTENT_MAX_DEPTH; i++)
		free(lv[i].buf);
	e4_blockset_free(&seen);
	return st;
}

struct ind {
	size_t block_size;
	const struct e4_block_range *range;
	uint64_t lblk_end;
	e4_read_block_fn read;
	e4_extent_fn fn;
	void *arg;
	struct e4_blockset seen;
	uint8_t *buf[3];
	enum e4_status st;
	const char *why;
	uint64_t bad;
	int done;
};

/* n pointers at ptrs cover logical blocks from lblk, span blocks each;
 * level 0: data blocks. */
static void walk_ind(struct ind *w, const uint8_t *ptrs, uint64_t n,
		     uint64_t lblk, uint64_t span, int level)
{
	uint64_t per = w->block_size / 4;

	for (uint64_t i = 0; i < n && !w->done && w->st == E4_OK; i++, lblk += span) {
		uint32_t b = e4_le32(ptrs + 4 * i);
		struct e4_extent e;

		if (lblk >= w->lblk_end) {
			w->done = 1;
			break;
		}
		if (!b)
			continue;
		if (!block_ok(w->range, b, 1)) {
			w->why = "pointer outside the filesystem";
			w->bad = b;
			w->st = E4_CORRUPT;
			break;
		}
		if (level == 0) {
			e.lblk = (uint32_t)lblk;
			e.len = 1;
			e.pblk = b;
			e.unwritten = 0;
			if (w->fn(w->arg, &e))
				w->st = E4_STOPPED;
			continue;
		}
		w->bad = b;
		if (e4_blockset_add(&w->seen, b) != 1) {
			w->why = "indirect block referenced twice";
			w->st = E4_CORRUPT;
			break;
		}
		w->st = w->read(w->arg, b, w->buf[level - 1]);
		if (w->st != E4_OK) {
			w->why = "indirect block cannot be read";
			break;
		}
		w->bad = 0;
		walk_ind(w, w->buf[level - 1], per, lblk, span / per, level - 1);
	}
}

enum e4_status e4_indirect_walk(const uint8_t root[E4_EXTENT_ROOT_SIZE],
				size_t block_size,
				const struct e4_block_range *range,
				uint64_t lblk_end, e4_read_block_fn read,
				e4_extent_fn fn, void *arg, const char **why,
				uint64_t *bad_block)
{
	struct ind w;
	uint64_t per = block_size / 4, lblk = 12, span = 1;

	memset(&w, 0, sizeof(w));
	w.block_size = block_size;
	w.range = range;
	/* logical block numbers are 32 bits (ext4_lblk_t) */
	w.lblk_end = lblk_end < ((uint64_t)1 << 32) ? lblk_end : (uint64_t)1 << 32;
	w.read = read;
	w.fn = fn;
	w.arg = arg;
	for (int i = 0; i < 3; i++)
		if (!(w.buf[i] = malloc(block_size)))
			w.st = E4_NOMEM;
	if (w.st == E4_OK)
		walk_ind(&w, root, 12, 0, 1, 0);
	for (int level = 1; level <= 3 && !w.done && w.st == E4_OK; level++) {
		span *= per;
		walk_ind(&w, root + 4 * (11 + level), 1, lblk, span, level);
		lblk += span;
	}
	for (int i = 0; i < 3; i++)
		free(w.buf[i]);
	e4_blockset_free(&w.seen);
	*why = w.why;
	*bad_block = w.bad;
	return w.st;
}
