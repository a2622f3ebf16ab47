/* extract --keep-locked's export: what a later decryption needs, saved
 * beside the ciphertext so that `e4dump unlock-kept` finishes the job
 * from the export alone, without the image.
 *
 *   DIR/%e4dump-export.json    once: the filesystem's UUID (IV_INO_LBLK_*
 *                              keys are derived with it), block size (the
 *                              data unit), name format, passphrase salt
 *   D/%e4dump-dir.json         in each output directory D that is locked
 *                              or holds something kept: the directory's
 *                              context and, per entry written, its output
 *                              name with its stored (encrypted) name,
 *                              hash pair and sidecar
 *   D/NAME.e4dump.json         beside each file or symlink kept locked
 *                              (its "decrypt_later" object)
 *
 * The names starting with '%' are never given to an entry of the image
 * (outdir_escape escapes every name starting with '%' and those never end
 * in ".json" after "%e4dump-"), and they are reserved in their directory
 * before any entry is named.  Machine fields are numbers and hex; the
 * stored context bytes are kept whole (e4_context_encode). */
#ifndef E4DUMP_KEPT_H
#define E4DUMP_KEPT_H

#include <json-c/json.h>
#include "inode.h"
#include "outdir.h"
#include "report.h"

#define KEPT_EXPORT_FILE "%e4dump-export.json"
#define KEPT_DIR_FILE "%e4dump-dir.json"
#define KEPT_FORMAT 1

/* {"of": of, "md5", "sha1", "sha256"} from manifest_hash's text; NULL when
 * it was not hashed ("-"). */
json_object *kept_hashes_json(const char *of, const char *hashes);

/* The inode's facts as a later decryption and the plaintext tree need
 * them: number (IV_INO_LBLK_* and per-file keys use it), i_mode, owner,
 * links, i_flags, i_size (the plaintext size), the four times (seconds and
 * nanoseconds), its stored context ("context_hex", or null), and for a
 * regular file the initialized data units stored in the ciphertext file
 * ("data_units": [[first logical block, count], ...]; every other block
 * is a hole or an unwritten extent: zeros in the plaintext).  NULL after
 * an error (reported by the library). */
json_object *kept_inode_json(struct e4_fs *fs, const struct e4_inode *in,
			     const char *path);

/* A locked context in the record vocabulary's "encryption" form
 * (policy_version, modes and their names, flags by name, descriptor or
 * identifier, nonce, key null, state "locked"). */
json_object *kept_encryption_json(const struct e4_context *c);

/* The export header (KEPT_EXPORT_FILE). */
json_object *kept_export_json(struct e4_fs *fs, const char *image,
			      const char *path);

/* Write o, pretty, into a new file name in dirfd.  0, or -1 with errno. */
int kept_write_json(struct outdir *od, int dirfd, const char *name,
		    json_object *o);

/* Lowercase hex (json_hex's) back to bytes: their count, or -1 when not
 * such hex or longer than max bytes. */
long kept_unhex(const char *hex, uint8_t *out, size_t max);

#endif
