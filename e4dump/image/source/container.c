/* container.h: the kind of a file by its signature. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "container.h"

typedef enum e4_status (*opener)(const char *path, struct e4_source **out,
				 char *why, size_t whylen);

/* Signatures at offset 0 (sources: libewf's, libqcow's, libvmdk's and
 * libvhdi's format documents; Android's sparse_format.h). */
static const struct {
	const char *magic;
	size_t len;
	size_t at;         /* its offset */
	opener open;       /* NULL: recognised, not read */
	const char *name;
	const char *kind;  /* the source's kind when it is not the reader's own */
} signatures[] = {
	{ "EVF\x09\x0d\x0a\xff\x00", 8, 0, e4_source_open_ewf, "EWF (E01/S01)", NULL },
	{ "LVF\x09\x0d\x0a\xff\x00", 8, 0, e4_source_open_ewf, "EWF (L01)", NULL },
	{ "EVF2\x0d\x0a\x81\x00", 8, 0, e4_source_open_ewf, "EWF2 (Ex01)", NULL },
	{ "LEF2\x0d\x0a\x81\x00", 8, 0, e4_source_open_ewf, "EWF2 (Lx01)", NULL },
	{ "QFI\xfb", 4, 0, e4_source_open_qcow, "QCOW", NULL },
	{ "KDMV", 4, 0, e4_source_open_vmdk, "VMDK (sparse extent)", NULL },
	{ "# Disk DescriptorFile", 21, 0, e4_source_open_vmdk, "VMDK (descriptor)", NULL },
	{ "conectix", 8, 0, e4_source_open_vhdi, "VHD", NULL },
	{ "vhdxfile", 8, 0, e4_source_open_vhdi, "VHDX", "VHDX" },
	{ "\x3a\xff\x26\xed", 4, 0, e4_source_open_sparse, "Android sparse image", NULL },
	/* recognised so that the error says what it is (VirtualBox's
	 * VDIPREHEADER magic; QEMU's QED; LUKS's header) */
	{ "\x7f\x10\xda\xbe", 4, 64, NULL, "VirtualBox VDI", NULL },
	{ "QED\0", 4, 0, NULL, "QEMU QED", NULL },
	{ "LUKS\xba\xbe", 6, 0, NULL, "LUKS encrypted volume (open it with cryptsetup first)", NULL },
};

#define SUPPORTED "raw images, split raw (NAME.000 or NAME.001, ...), EWF (E01, split E01/E02/...), QCOW (qcow, qcow2), VHD, VHDX, VMDK and Android sparse images"

#define NSIGNATURES (sizeof(signatures) / sizeof(signatures[0]))

/* The signature head starts with, or NSIGNATURES. */
static size_t match(const uint8_t *head, size_t len)
{
	size_t i;

	for (i = 0; i < NSIGNATURES; i++)
		if (len >= signatures[i].at + signatures[i].len &&
		    !memcmp(head + signatures[i].at, signatures[i].magic,
			    signatures[i].len))
			break;
	return i;
}

/* Raw images have no signature: a set is known by its names
 * (e4_split_raw_set: NAME.000 or NAME.001, as FTK Imager and split -d
 * name them, and the members beside it).  Only such names are globbed:
 * libsmraw_glob crashes on some others (20181227: "xaa"). */
enum e4_status e4_source_open_any(const char *path, struct e4_source **out,
				  char *why, size_t whylen)
{
	uint8_t head[128], tail[128];
	ssize_t got;
	size_t i;
	int split;
	enum e4_status st;
	char lib[400];

	*out = NULL;
	/* the raw reader opens it first: it says why a path is no image
	 * (missing, a directory, ...) in errno's words */
	st = e4_source_open_file(path, out);
	if (st != E4_OK) {
		snprintf(why, whylen, "%s", strerror(errno));
		return st;
	}
	/* the head through the source just opened: a second open() could
	 * find another file (or a FIFO) under the name */
	got = (ssize_t)((*out)->size < sizeof(head) ? (*out)->size : sizeof(head));
	if (got > 0 && e4_source_read(*out, 0, head, (size_t)got) != E4_OK)
		got = -1;
	/* a fixed VHD is the raw disk and a footer: its signature is in the
	 * last 512 bytes (a dynamic one has a copy of it at the start) */
	if (got > 0 && (*out)->size >= 1024 && match(head, (size_t)got) == NSIGNATURES &&
	    e4_source_read(*out, (*out)->size - 512, tail, sizeof(tail)) == E4_OK &&
	    !memcmp(tail, "conectix", 8))
		memcpy(head, tail, sizeof(head));
	i = got > 0 ? match(head, (size_t)got) : NSIGNATURES;
	split = i == NSIGNATURES ? e4_split_raw_set(path, why, whylen) : 0;
	if (i == NSIGNATURES && !split)
		return E4_OK; /* raw */
	e4_source_close(*out);
	*out = NULL;
	if (split < 0)
		return E4_INVALID;
	if (i == NSIGNATURES) {
		st = e4_source_open_smraw(path, out, lib, sizeof(lib));
		if (st != E4_OK)
			snprintf(why, whylen, "split raw image: %s", lib);
		return st;
	}
	if (!signatures[i].open) {
		snprintf(why, whylen, "%s: not supported (supported: " SUPPORTED ")",
			 signatures[i].name);
		return E4_UNSUPPORTED;
	}
	st = signatures[i].open(path, out, lib, sizeof(lib));
	if (st != E4_OK)
		snprintf(why, whylen, "%s container: %s", signatures[i].name, lib);
	else if (signatures[i].kind)
		(*out)->kind = signatures[i].kind;
	return st;
}
