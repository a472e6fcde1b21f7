/* cmds: the entry point of every subcommand, one source file each (cmd_*.c).
 * Each takes the arguments after the command name and returns the exit status. */
#ifndef TESTFENCE_CMDS_H
#define TESTFENCE_CMDS_H

#include "base/err.h"
#include "core/exitcode.h"

int cmd_run(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_clean(int argc, char **argv);
int cmd_suggest(int argc, char **argv);

#if defined(_WIN32) || defined(TESTFENCE_MACOS)
struct opts;
/* The builds off Linux (cmd_nofence.c): the root and configuration run would use, as the
 * Linux doctor prints them; 0, or -1 with the reason in ERR (cmd_osrun.c's doctor too). */
int doctor_project(const struct opts *o, tf_err *err);
#endif

#endif
