/* The subcommands: the command table's entries (main.c), on top of the
 * tool layer (tool/), verify/ and vectors/. */
#ifndef E4DUMP_COMMANDS_H
#define E4DUMP_COMMANDS_H

#include "options.h"
#include "report.h"
#include "session.h"
#include "vectors_command.h"
#include "verify_command.h"

int cmd_info(const struct options *o, struct report *r);
int cmd_ls(const struct options *o, struct report *r);
int cmd_cat(const struct options *o, struct report *r);
int cmd_extract(const struct options *o, struct report *r);
int cmd_stat(const struct options *o, struct report *r);
int cmd_timeline(const struct options *o, struct report *r);
int cmd_keyid(const struct options *o, struct report *r);
int cmd_volumes(const struct options *o, struct report *r);
int cmd_journal(const struct options *o, struct report *r);
int cmd_mount(const struct options *o, struct report *r);
int cmd_undelete(const struct options *o, struct report *r);
int cmd_keyscan(const struct options *o, struct report *r);
int cmd_unlock_kept(const struct options *o, struct report *r);

#endif
