/* Android sparse images (what img2simg and fastboot write).  libsparse,
 * the format's own library, checks the whole chunk list first (it is
 * what simg2img expands); it has no random access, so the reads go
 * through an index of the chunks built here.  Layout: AOSP
 * libsparse/sparse_format.h: a 28-byte file header (magic 0xed26ff3a,
 * version 1.0, header sizes, block size, blocks, chunks), then chunks of
 * a 12-byte header (type, reserved, blocks, total bytes) and their data:
 * raw (the blocks), fill (a 32-bit value), don't care (none), crc32. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dynlib.h"
#include "readers.h"
#include "byteorder.h"

#define SPARSE_MAGIC 0xed26ff3au
#define CHUNK_RAW 0xcac1u
#define CHUNK_FILL 0xcac2u
#define CHUNK_DONT_CARE 0xcac3u
#define CHUNK_CRC32 0xcac4u
/* Android images have thousands of chunks; a bound keeps a hostile list
 * of tiny chunks from costing seconds (libsparse walks it at about 8 us a
 * chunk) and more memory than the file. */
#define MAX_CHUNKS (1u << 18)

struct chunk {
	uint64_t block;   /* first block it covers */
	uint64_t blocks;
	uint64_t data;    /* raw: file offset of its data */
	uint32_t fill;    /* fill: the value repeated */
	int raw;
};

struct sparse {
	int fd;
	uint32_t block_size;
	struct chunk *c;  /* raw and fill chunks, by block */
	size_t n;
};

/* The chunk holding block b, or NULL (a don't-care gap: zeros). */
static const struct chunk *find(const struct sparse *s, uint64_t b)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->c[mid].block + s->c[mid].blocks <= b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->c[lo].block <= b ? &s->c[lo] : NULL;
}

static int sparse_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct sparse *s = arg;
	uint8_t *p = buf;

	while (len) {
		uint64_t b = off / s->block_size;
		const struct chunk *c = find(s, b);
		uint64_t end = c ? (c->block + c->blocks) * s->block_size :
				   (b + 1) * s->block_size;
		size_t n = end - off < len ? (size_t)(end - off) : len;

		if (!c) {
			memset(p, 0, n);
		} else if (c->raw) {
			uint64_t at = c->data + (off - c->block * s->block_size);
			size_t done = 0;

			while (done < n) {
				ssize_t r = pread(s->fd, p + done, n - done,
						  (off_t)(at + done));

				if (r < 0 && errno == EINTR)
					continue;
				if (r <= 0) {
					if (!r)
						errno = EIO;
					return -1;
				}
				done += (size_t)r;
			}
		} else {
			uint8_t v[4];

			memcpy(v, &c->fill, 4); /* stored little-endian */
			for (size_t i = 0; i < n; i++)
				p[i] = v[(off + i) % 4];
		}
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

static void sparse_close(void *arg)
{
	struct sparse *s = arg;

	close(s->fd);
	free(s->c);
	free(s);
}

static const struct e4_source_ops sparse_ops = { sparse_read, sparse_close };

/* The file header (28 bytes at 0), checked before libsparse reads on: it
 * divides by the block size.  0, or -1 with why. */
static int read_header(struct sparse *s, uint32_t *hdr, uint32_t *chdr,
		       uint64_t *blocks, uint32_t *chunks, char *why, size_t whylen)
{
	uint8_t h[28];

	if (pread(s->fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    e4_le32(h) != SPARSE_MAGIC) {
		snprintf(why, whylen, "no sparse header");
		return -1;
	}
	*hdr = e4_le16(h + 8);
	*chdr = e4_le16(h + 10);
	s->block_size = e4_le32(h + 12);
	*blocks = e4_le32(h + 16);
	*chunks = e4_le32(h + 20);
	if (e4_le16(h + 4) != 1 || *hdr < 28 || *chdr < 12 || !s->block_size ||
	    s->block_size % 4 || s->block_size > (1u << 20)) {
		snprintf(why, whylen, "unsupported header (version %u.%u, block size %u)",
			 e4_le16(h + 4), e4_le16(h + 6), s->block_size);
		return -1;
	}
	if (*chunks > MAX_CHUNKS) {
		snprintf(why, whylen, "%u chunks: more than %u", *chunks, MAX_CHUNKS);
		return -1;
	}
	return 0;
}

/* Index the chunks of the file at fd (size bytes); 0, or -1 with why. */
static int index_chunks(struct sparse *s, uint64_t size, uint32_t hdr,
			uint32_t chdr, uint64_t blocks, uint32_t chunks,
			char *why, size_t whylen)
{
	uint8_t ch[12];
	uint32_t fill;
	uint64_t off, block = 0;

	s->c = calloc(chunks ? chunks : 1, sizeof(*s->c));
	if (!s->c) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	off = hdr;
	for (uint32_t i = 0; i < chunks; i++) {
		uint32_t type, nblk, total;
		uint64_t bytes;

		if (off > size || size - off < chdr ||
		    pread(s->fd, ch, sizeof(ch), (off_t)off) != (ssize_t)sizeof(ch))
			goto bad;
		type = e4_le16(ch);
		nblk = e4_le32(ch + 4);
		total = e4_le32(ch + 8);
		bytes = (uint64_t)nblk * s->block_size;
		if (total < chdr || total > size - off)
			goto bad;
		/* a CRC32 chunk's block count means nothing (libsparse) */
		if (type != CHUNK_CRC32 && nblk > blocks - block)
			goto bad;
		switch (type) {
		case CHUNK_RAW:
			if (total - chdr != bytes)
				goto bad;
			if (nblk)
				s->c[s->n++] = (struct chunk){ block, nblk, off + chdr, 0, 1 };
			break;
		case CHUNK_FILL:
			if (total - chdr != 4 ||
			    pread(s->fd, &fill, 4, (off_t)(off + chdr)) != 4)
				goto bad;
			if (nblk)
				s->c[s->n++] = (struct chunk){ block, nblk, 0, fill, 0 };
			break;
		case CHUNK_DONT_CARE:
		case CHUNK_CRC32:
			break;
		default:
			goto bad;
		}
		block += type == CHUNK_CRC32 ? 0 : nblk;
		off += total;
	}
	if (block != blocks) {
		snprintf(why, whylen, "its chunks cover %llu of %llu blocks",
			 (unsigned long long)block, (unsigned long long)blocks);
		return -1;
	}
	return 0;
bad:
	snprintf(why, whylen, "chunk list is corrupt (at byte %llu)",
		 (unsigned long long)off);
	return -1;
}

enum e4_status e4_source_open_sparse(const char *path, struct e4_source **out,
				     char *why, size_t whylen)
{
	struct sparse *s = calloc(1, sizeof(*s));
	struct sparse_file *checked;
	uint64_t blocks = 0;
	uint32_t hdr, chdr, chunks;
	uint64_t fsize = 0;
	off_t size;

	*out = NULL;
	/* the library is loaded for the first image that needs it */
	if (e4_dl_need(E4_DL_SPARSE, why, whylen)) {
		free(s);
		return E4_UNSUPPORTED;
	}
	if (!s) {
		snprintf(why, whylen, "out of memory");
		return E4_NOMEM;
	}
	/* a regular file or block device, never waiting on a FIFO */
	s->fd = e4_evidence_fd(path, 1, &fsize);
	size = (off_t)fsize;
	/* the import reads from the file position: at the start */
	if (s->fd < 0 || lseek(s->fd, 0, SEEK_SET) != 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		goto fail;
	}
	if (read_header(s, &hdr, &chdr, &blocks, &chunks, why, whylen))
		goto fail;
	/* the format's library must accept the whole chunk list */
	checked = E4_SPARSE->file_import(s->fd, false, false);
	if (!checked) {
		snprintf(why, whylen, "libsparse refuses its chunk list");
		goto fail;
	}
	E4_SPARSE->file_destroy(checked);
	if (index_chunks(s, (uint64_t)size, hdr, chdr, blocks, chunks, why, whylen))
		goto fail;
	return e4_source_new(&sparse_ops, s, blocks * s->block_size, path, 1,
			     "Android sparse", out);
fail:
	if (s->fd >= 0)
		close(s->fd);
	free(s->c);
	free(s);
	return E4_IO;
}
