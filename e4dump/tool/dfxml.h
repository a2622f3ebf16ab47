/* extract --dfxml FILE (and undelete --dfxml FILE): Digital Forensics XML as fiwalk writes it, valid
 * under the DFXML schema 1.1.1 (dfxml_schema's dfxml.xsd; the document
 * stays valid under 2.0.0-beta.0's rules too): dfxml version="1.1.1",
 * metadata, creator, source, then one volume holding a fileobject for
 * every file, directory and symlink written, its elements in the schema's
 * order; what the schema has no element for (the encryption facts, the
 * output path) in e4dump's namespace DFXML_E4_NS, placed only where the
 * schema lets other namespaces in.  libxml2's xmlTextWriter. */
#ifndef E4DUMP_DFXML_H
#define E4DUMP_DFXML_H

#include "fs.h"
#include "record.h"
#include "report.h"

#define DFXML_VERSION "1.1.1"
#define DFXML_NS "http://www.forensicswiki.org/wiki/Category:Digital_Forensics_XML"
#define DFXML_E4_NS "https://e4dump.invalid/dfxml/1"

struct dfxml;

/* Write the document's head to fd (taken over: closed by dfxml_close, or
 * here on failure): creator (argv, this host), source (image and its
 * size), the volume of fs; deleted: the fileobjects will be deleted
 * entries (undelete: allocated_only 0).  NULL after an error (reported,
 * naming path). */
struct dfxml *dfxml_open(int fd, const char *path, const char *image,
			 struct e4_fs *fs, int deleted, int argc, char **argv,
			 struct report *r);

/* One fileobject (the caller serializes the calls): the record r renders
 * as one, every element from it: filename (its path in the image), id,
 * name_type, filesize, alloc (unalloc for a deleted name; orphan when its
 * name is lost), inode, meta_type, mode, nlink, uid, gid, the times,
 * dtime, link_target, byte_runs, a hashdigest per hash, then e4dump's
 * name_state, raw_name_hex, encryption, xattrs_error, ciphertext_sha256,
 * unreadable_blocks, output_path and status.  0 or -1. */
int dfxml_fileobject(struct dfxml *x, const struct record *r);

/* End the document and close it: 0, or -1 when anything failed. */
int dfxml_close(struct dfxml *x);

#endif
