/* exitcode: the exit statuses testfence itself gives, shared by every command and the run.
 * They follow timeout(1) and env(1); anything else is the command's own status. */
#ifndef TESTFENCE_EXITCODE_H
#define TESTFENCE_EXITCODE_H

enum {
    TF_EXIT_VIOLATIONS = 120, /* the command exited 0, but writes were blocked */
    TF_EXIT_OWN_ERROR = 125,
    TF_EXIT_CANNOT_EXEC = 126,
    TF_EXIT_NOT_FOUND = 127,
};

#endif
