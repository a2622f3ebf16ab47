/* libext2fs opens a device by name through an io_manager.  This one
 * takes the e4_source's address from the name, reads through it, and
 * refuses every write: the image is never modified. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io.h"

#define PREFIX "e4dump-source:"

static struct struct_io_manager manager;

struct chan {
	struct e4_source *src;
};

void e4_source_io_name(const struct e4_source *s, char buf[64])
{
	snprintf(buf, 64, PREFIX "%" PRIxPTR, (uintptr_t)s);
}

static errcode_t src_open(const char *name, int flags, io_channel *out)
{
	io_channel io = NULL;
	struct chan *c = NULL;
	uintptr_t addr;
	errcode_t err;

	if (flags & IO_FLAG_RW)
		return EXT2_ET_RO_UNSUPP_FEATURE;
	if (strncmp(name, PREFIX, strlen(PREFIX)) ||
	    sscanf(name + strlen(PREFIX), "%" SCNxPTR, &addr) != 1 || !addr)
		return EXT2_ET_BAD_DEVICE_NAME;
	err = ext2fs_get_memzero(sizeof(*io), &io);
	if (!err)
		err = ext2fs_get_memzero(sizeof(*c), &c);
	if (!err)
		err = ext2fs_get_mem(strlen(name) + 1, &io->name);
	if (err) {
		ext2fs_free_mem(&c);
		ext2fs_free_mem(&io);
		return err;
	}
	strcpy(io->name, name);
	c->src = (struct e4_source *)addr;
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = &manager;
	io->block_size = 1024;
	io->refcount = 1;
	io->private_data = c;
	*out = io;
	return 0;
}

static errcode_t src_close(io_channel io)
{
	if (--io->refcount > 0)
		return 0;
	ext2fs_free_mem(&io->private_data);
	ext2fs_free_mem(&io->name);
	ext2fs_free_mem(&io);
	return 0;
}

static errcode_t src_set_blksize(io_channel io, int blksize)
{
	if (blksize <= 0)
		return EXT2_ET_INVALID_ARGUMENT;
	io->block_size = blksize;
	return 0;
}

/* count < 0 means -count bytes (libext2fs reads the superblock so). */
static errcode_t src_read64(io_channel io, unsigned long long block, int count,
			    void *data)
{
	struct chan *c = io->private_data;
	uint64_t off, len;

	len = count < 0 ? (uint64_t)-(int64_t)count :
			  (uint64_t)count * (uint64_t)io->block_size;
	if (block > UINT64_MAX / (uint64_t)io->block_size)
		return EXT2_ET_SHORT_READ;
	off = block * (uint64_t)io->block_size;
	if (e4_source_read(c->src, off, data, (size_t)len) != E4_OK) {
		int err = errno;

		memset(data, 0, (size_t)len);
		if (off > c->src->size || len > c->src->size - off)
			return EXT2_ET_SHORT_READ;
		return err ? err : EIO;
	}
	return 0;
}

static errcode_t src_read(io_channel io, unsigned long block, int count,
			  void *data)
{
	return src_read64(io, block, count, data);
}

static errcode_t src_write(io_channel io, unsigned long block, int count,
			   const void *data)
{
	(void)io, (void)block, (void)count, (void)data;
	return EXT2_ET_RO_UNSUPP_FEATURE;
}

static errcode_t src_write64(io_channel io, unsigned long long block,
			     int count, const void *data)
{
	(void)io, (void)block, (void)count, (void)data;
	return EXT2_ET_RO_UNSUPP_FEATURE;
}

static errcode_t src_write_byte(io_channel io, unsigned long offset,
				int count, const void *data)
{
	(void)io, (void)offset, (void)count, (void)data;
	return EXT2_ET_RO_UNSUPP_FEATURE;
}

static errcode_t src_flush(io_channel io)
{
	(void)io;
	return 0;
}

static errcode_t src_set_option(io_channel io, const char *option,
				const char *arg)
{
	(void)io, (void)option, (void)arg;
	return EXT2_ET_INVALID_ARGUMENT;
}

static struct struct_io_manager manager = {
	.magic = EXT2_ET_MAGIC_IO_MANAGER,
	.name = "e4dump source I/O manager",
	.open = src_open,
	.close = src_close,
	.set_blksize = src_set_blksize,
	.read_blk = src_read,
	.write_blk = src_write,
	.flush = src_flush,
	.write_byte = src_write_byte,
	.set_option = src_set_option,
	.read_blk64 = src_read64,
	.write_blk64 = src_write64,
};

io_manager e4_source_io_manager(void)
{
	return &manager;
}
