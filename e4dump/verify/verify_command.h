/* e4dump verify, as the command table calls it. */
#ifndef E4DUMP_VERIFY_COMMAND_H
#define E4DUMP_VERIFY_COMMAND_H

#include "options.h"
#include "report.h"

int cmd_verify(const struct options *o, struct report *r);

#endif
