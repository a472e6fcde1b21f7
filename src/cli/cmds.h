/* cmds: the entry point of every subcommand, one source file each (cmd_*.c).
 * Each takes the arguments after the command name and returns the exit status. */
#ifndef TESTFENCE_CMDS_H
#define TESTFENCE_CMDS_H

#include "core/exitcode.h"

int cmd_run(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_clean(int argc, char **argv);

#endif
