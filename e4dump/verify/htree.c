/* e4dump verify: htree (dx) directories.  The dx_root and dx_node blocks
 * are parsed here with bounds checks; each leaf entry's hash, computed by
 * the directory's rule, must lie in the hash range its leaf was given.
 *   Linux 6.1: ext2fs_dirhash2 over the stored name (the ciphertext in an
 *              encrypted directory), dx_root hash version, s_hash_seed;
 *   2015 format: the same over the 2015 no-key name of the ciphertext.
 * Casefolded directories (their hash is over the folded name, or stored
 * in the entry) are not checked. */
#include <stdlib.h>
#include <string.h>
#include "blockmap.h"
#include "verify.h"
#include "byteorder.h"

#define DX_INFO 0x18           /* struct dx_root_info in block 0 */
#define DX_HASH_SIPHASH 6

struct hx {
	struct verify *v;
	uint32_t dir;
	const struct vref *at;
	unsigned int bs;
	uint64_t nblocks;
	struct e4_run *runs;    /* the directory's block map */
	size_t nruns;
	struct e4_blockset seen; /* dx and leaf blocks met (lblk + 1) */
	int version;            /* hash version for ext2fs_dirhash2 */
	const uint32_t *seed;
	int f2015;
	unsigned int tail;      /* dx_tail bytes (metadata_csum) */
	int bad;                /* one htree.corrupt per directory is enough */
};

static void corrupt(struct hx *h, const char *what, uint64_t lblk)
{
	if (h->bad++)
		return;
	vfind(h->v, CHECK_HTREE_CORRUPT, h->dir, h->at,
	      "%s (directory block %llu)", what, (unsigned long long)lblk);
}

static int read_lblk(struct hx *h, uint64_t lblk, uint8_t *buf)
{
	size_t lo = 0, hi = h->nruns;

	if (lblk >= h->nblocks) {
		corrupt(h, "dx entry points past the end of the directory", lblk);
		return -1;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct e4_run *r = &h->runs[mid];

		if (lblk < r->lblk) {
			hi = mid;
		} else if (lblk >= r->lblk + r->len) {
			lo = mid + 1;
		} else {
			if (e4_read_blocks(h->v->fs, r->pblk + (lblk - r->lblk), 1, buf)) {
				corrupt(h, "directory block cannot be read", lblk);
				return -1;
			}
			return 0;
		}
	}
	corrupt(h, "dx entry points to a hole", lblk);
	return -1;
}

/* Each dx or leaf block is met once (a block met again would make the
 * walk exponential). */
static int first_visit(struct hx *h, uint64_t lblk)
{
	int r = e4_blockset_add(&h->seen, lblk + 1);

	if (r < 0)
		h->v->nomem = 1;
	return r == 1;
}

static int entry_hash(struct hx *h, const uint8_t *name, unsigned int len,
		      uint32_t *out)
{
	return e4_htree_entry_hash(h->version, h->seed,
				   h->f2015 ? E4_FORMAT_2015 : E4_FORMAT_61,
				   name, len, out);
}

/* A leaf block covers hashes lo <= h < hi, or h <= hi when the next dx
 * entry has the collision bit (its hash continues in the next block). */
static void check_leaf(struct hx *h, uint64_t lblk, uint32_t lo, uint32_t hi,
		       int hi_incl)
{
	uint8_t *buf;
	unsigned int pos = 0;

	if (lblk >= h->nblocks) {
		corrupt(h, "dx entry points past the end of the directory", lblk);
		return;
	}
	if (!first_visit(h, lblk)) {
		corrupt(h, "leaf block referenced twice", lblk);
		return;
	}
	buf = malloc(h->bs);
	if (!buf) {
		h->v->nomem = 1;
		return;
	}
	if (read_lblk(h, lblk, buf))
		goto out;
	while (pos + 8 <= h->bs) {
		unsigned int rec_len, name_len;
		uint32_t ino = e4_le32(buf + pos), hash;

		rec_len = e4_le16(buf + pos + 4);
		if (h->bs >= 65536)
			rec_len = rec_len == 65535 || rec_len == 0 ? h->bs :
				  (rec_len & 65532) | ((rec_len & 3) << 16);
		if (rec_len < 8 || rec_len % 4 || rec_len > h->bs - pos) {
			corrupt(h, "leaf entry with a bad record length", lblk);
			break;
		}
		name_len = buf[pos + 6];
		if (name_len + 8 > rec_len) {
			corrupt(h, "leaf entry name longer than its record", lblk);
			break;
		}
		if (ino && name_len && !entry_hash(h, buf + pos + 8, name_len, &hash) &&
		    (hash < lo || hash > hi || (hash == hi && !hi_incl)))
			vfind(h->v, CHECK_HTREE_HASH, ino, NULL,
			      "hash 0x%08x of its entry in directory inode %u, block %llu, is outside the block's range 0x%08x..0x%08x%s",
			      hash, h->dir, (unsigned long long)lblk, lo, hi,
			      hi_incl ? " (inclusive)" : "");
		pos += rec_len;
	}
out:
	free(buf);
}

static void check_node(struct hx *h, const uint8_t *p, unsigned int space,
		       unsigned int level, uint64_t lblk, uint32_t lo,
		       uint32_t hi, int hi_incl)
{
	unsigned int limit, count, want;
	uint32_t *hash, *block;

	if (space < 8 + h->tail) {
		corrupt(h, "dx node too small", lblk);
		return;
	}
	want = (space - h->tail) / 8;
	limit = e4_le16(p);
	count = e4_le16(p + 2);
	if (limit != want || count == 0 || count > limit) {
		corrupt(h, "dx node count/limit out of bounds", lblk);
		return;
	}
	hash = malloc(count * sizeof(*hash));
	block = malloc(count * sizeof(*block));
	if (!hash || !block) {
		free(hash);
		free(block);
		h->v->nomem = 1;
		return;
	}
	for (unsigned int i = 0; i < count; i++) {
		hash[i] = i ? e4_le32(p + 8 * i) : lo;
		block[i] = e4_le32(p + 8 * i + 4) & 0x0fffffff;
		if (i && ((hash[i] & ~1u) < (hash[i - 1] & ~1u) ||
			  (hash[i] & ~1u) > hi)) {
			corrupt(h, "dx node hashes out of order", lblk);
			goto out;
		}
	}
	for (unsigned int i = 0; i < count && !h->v->nomem; i++) {
		uint32_t l = i ? hash[i] & ~1u : lo;
		uint32_t u = i + 1 < count ? hash[i + 1] & ~1u : hi;
		int incl = i + 1 < count ? (int)(hash[i + 1] & 1) : hi_incl;

		if (level == 0) {
			check_leaf(h, block[i], l, u, incl);
			continue;
		}
		if (!first_visit(h, block[i])) {
			corrupt(h, "dx node referenced twice", block[i]);
			continue;
		}
		{
			uint8_t *nb = malloc(h->bs);
			unsigned int rl;

			if (!nb) {
				h->v->nomem = 1;
				break;
			}
			if (!read_lblk(h, block[i], nb)) {
				rl = e4_le16(nb + 4);
				if (h->bs >= 65536 && (rl == 65535 || rl == 0))
					rl = h->bs;
				if (e4_le32(nb) != 0 || rl != h->bs)
					corrupt(h, "dx node without its empty dirent header", block[i]);
				else
					check_node(h, nb + 8, h->bs - 8, level - 1,
						   block[i], l, u, incl);
			}
			free(nb);
		}
	}
out:
	free(hash);
	free(block);
}

void verify_htree(struct verify *v, const struct e4_inode *dir,
		  const struct vref *at)
{
	struct ext2_super_block *sb = e4_fs_ext2(v->fs)->super;
	struct hx h;
	uint8_t *root = NULL;
	unsigned int levels, max_levels = ext2fs_has_feature_largedir(sb) ? 3 : 2;

	if (dir->flags & E4_INODE_CASEFOLD_FL)
		return;
	memset(&h, 0, sizeof(h));
	h.v = v;
	h.dir = dir->ino;
	h.at = at;
	h.bs = v->info.block_size;
	h.nblocks = dir->size / h.bs;
	h.f2015 = dir->encrypted && v->format == E4_FORMAT_2015;
	h.seed = sb->s_hash_seed;
	h.tail = ext2fs_has_feature_metadata_csum(sb) ? 8 : 0;
	if (h.nblocks < 2) {
		corrupt(&h, "indexed directory of an absurd size", 0);
		return;
	}
	if (e4_inode_runs(v->fs, dir, NULL, h.nblocks, &h.runs, &h.nruns) != E4_OK)
		goto out; /* reported (dir.corrupt) while the walk listed it */
	root = malloc(h.bs);
	if (!root) {
		v->nomem = 1;
		goto out;
	}
	if (read_lblk(&h, 0, root))
		goto out;
	h.version = root[DX_INFO + 4];
	levels = root[DX_INFO + 6];
	if (h.version == DX_HASH_SIPHASH)
		goto out; /* casefold + encrypt: hash stored in the entries */
	if (e4_le32(root + DX_INFO) != 0 || root[DX_INFO + 5] != 8 ||
	    h.version > EXT2_HASH_TEA || levels >= max_levels) {
		corrupt(&h, "dx_root_info invalid (reserved word, hash version, info length or depth)", 0);
		goto out;
	}
	if (sb->s_flags & EXT2_FLAGS_UNSIGNED_HASH)
		h.version += 3;
	first_visit(&h, 0);
	check_node(&h, root + DX_INFO + 8, h.bs - DX_INFO - 8, levels, 0, 0,
		   0xffffffffu, 1);
out:
	free(root);
	free(h.runs);
	e4_blockset_free(&h.seen);
}
