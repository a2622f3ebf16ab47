/* The subcommands. */
#ifndef E4DUMP_COMMANDS_H
#define E4DUMP_COMMANDS_H

#include "options.h"
#include "report.h"

int cmd_info(const struct options *o, struct report *r);
int cmd_ls(const struct options *o, struct report *r);
int cmd_cat(const struct options *o, struct report *r);
int cmd_extract(const struct options *o, struct report *r);
int cmd_verify(const struct options *o, struct report *r);
int cmd_stat(const struct options *o, struct report *r);
int cmd_timeline(const struct options *o, struct report *r);
int cmd_keyid(const struct options *o, struct report *r);
int cmd_volumes(const struct options *o, struct report *r);
int cmd_journal(const struct options *o, struct report *r);
int cmd_mount(const struct options *o, struct report *r);
int cmd_undelete(const struct options *o, struct report *r);
int cmd_vectors(const struct options *o, struct report *r);

/* Flush standard output; EXIT_FATAL after an error when it failed (a
 * full disk, a closed pipe), else rc. */
int finish_stdout(int rc, struct report *r);

#endif
