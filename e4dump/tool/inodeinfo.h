/* One inode as a JSON object ("stat" record): type, mode, owner, sizes,
 * links, flags by name, generation, the four times, its block runs, its
 * encryption context decoded with the key file that opens it, and its
 * no-key name. */
#ifndef E4DUMP_INODEINFO_H
#define E4DUMP_INODEINFO_H

#include <json-c/json.h>
#include "inode.h"
#include "session.h"

/* shown: the path as displayed.  nokey: the entry's no-key name when the
 * caller has it; else, with path (the PATH given), it is looked up in
 * the parent directory; else none. */
json_object *inode_info(struct session *s, const char *path, const char *shown,
			const struct e4_inode *in, const char *nokey);

/* Add to o, the record of in (record.h), what stat shows beside it:
 * stored_size, inode_flags, generation, blocks, target_state, nokey_name
 * (path, nokey as above). */
void inode_info_add(json_object *o, struct session *s, const char *path,
		    const char *shown, const struct e4_inode *in, const char *nokey);

#endif
