/* cmds: the entry point of every subcommand, one source file each (cmd_*.c).
 * Each takes the arguments after the command name and returns the exit status. */
#ifndef TESTFENCE_CMDS_H
#define TESTFENCE_CMDS_H

int cmd_run(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_clean(int argc, char **argv);

/* Exit statuses shared by all commands (timeout(1)/env(1) conventions). */
enum {
    TF_EXIT_VIOLATIONS = 120, /* the command exited 0, but writes were blocked */
    TF_EXIT_OWN_ERROR = 125,
    TF_EXIT_CANNOT_EXEC = 126,
    TF_EXIT_NOT_FOUND = 127,
};

#endif
