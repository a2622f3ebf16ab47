/* container.h: the kind of a file by its signature. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "container.h"

enum kind { RAW, EWF, QCOW, VMDK, VHD, VHDX, SPARSE };

/* Signatures at offset 0 (sources: libewf's, libqcow's, libvmdk's and
 * libvhdi's format documents; Android's sparse_format.h). */
static const struct {
	const char *magic;
	size_t len;
	enum kind kind;
	const char *name;
} signatures[] = {
	{ "EVF\x09\x0d\x0a\xff\x00", 8, EWF, "EWF (E01/S01)" },
	{ "LVF\x09\x0d\x0a\xff\x00", 8, EWF, "EWF (L01)" },
	{ "EVF2\x0d\x0a\x81\x00", 8, EWF, "EWF2 (Ex01)" },
	{ "LEF2\x0d\x0a\x81\x00", 8, EWF, "EWF2 (Lx01)" },
	{ "QFI\xfb", 4, QCOW, "QCOW" },
	{ "KDMV", 4, VMDK, "VMDK (sparse extent)" },
	{ "# Disk DescriptorFile", 21, VMDK, "VMDK (descriptor)" },
	{ "conectix", 8, VHD, "VHD" },
	{ "vhdxfile", 8, VHDX, "VHDX" },
	{ "\x3a\xff\x26\xed", 4, SPARSE, "Android sparse image" },
};

#define SUPPORTED "raw images, EWF (E01, split E01/E02/...), QCOW (qcow, qcow2), VHD, VHDX and VMDK"

void e4_container_why(const char *text, char *why, size_t whylen)
{
	const char *colon = strstr(text, ": ");
	size_t n;

	if (colon && colon < text + strcspn(text, " \n"))
		text = colon + 2;
	n = strcspn(text, "\n");
	if (n && text[n - 1] == '.')
		n--;
	if (!n)
		snprintf(why, whylen, "unknown error");
	else
		snprintf(why, whylen, "%.*s", (int)n, text);
}

/* Does a signature match head? */
static int known(const uint8_t *head, size_t len)
{
	for (size_t i = 0; i < sizeof(signatures) / sizeof(signatures[0]); i++)
		if (len >= signatures[i].len &&
		    !memcmp(head, signatures[i].magic, signatures[i].len))
			return 1;
	return 0;
}

enum e4_status e4_source_open_any(const char *path, struct e4_source **out,
				  char *why, size_t whylen)
{
	uint8_t head[32], tail[32];
	ssize_t got;
	int fd;
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
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	got = fd < 0 ? -1 : pread(fd, head, sizeof(head), 0);
	/* a fixed VHD is the raw disk and a footer: its signature is in the
	 * last 512 bytes (a dynamic one has a copy of it at the start) */
	if (got > 0 && (*out)->size >= 1024 && !known(head, (size_t)got) &&
	    pread(fd, tail, sizeof(tail), (off_t)((*out)->size - 512)) == sizeof(tail) &&
	    !memcmp(tail, "conectix", 8))
		memcpy(head, tail, sizeof(head));
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; got > 0 && i < sizeof(signatures) / sizeof(signatures[0]); i++) {
		if ((size_t)got < signatures[i].len ||
		    memcmp(head, signatures[i].magic, signatures[i].len))
			continue;
		e4_source_close(*out);
		*out = NULL;
		switch (signatures[i].kind) {
		case EWF:
			st = e4_source_open_ewf(path, out, lib, sizeof(lib));
			break;
		case QCOW:
			st = e4_source_open_qcow(path, out, lib, sizeof(lib));
			break;
		case VHD:
		case VHDX:
			st = e4_source_open_vhdi(path, out, lib, sizeof(lib));
			break;
		case VMDK:
			st = e4_source_open_vmdk(path, out, lib, sizeof(lib));
			break;
		default:
			snprintf(why, whylen, "%s: not supported (supported: " SUPPORTED ")",
				 signatures[i].name);
			return E4_UNSUPPORTED;
		}
		if (st != E4_OK)
			snprintf(why, whylen, "%s container: %s", signatures[i].name, lib);
		else if (signatures[i].kind == VHDX)
			(*out)->kind = "VHDX";
		return st;
	}
	return E4_OK;
}
