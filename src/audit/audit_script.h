/* audit_script: the shell scripts tests run, read from the project and scanned by audit_shell:
 * the commands in them that matter, for the project phase to judge at the test's call. */
#ifndef TESTFENCE_AUDIT_SCRIPT_H
#define TESTFENCE_AUDIT_SCRIPT_H

#include "audit_shell.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct tf_script {
    tf_sh_cmd *cmds; /* the commands that matter, in order */
    size_t n, cap;
    bool oom;
} tf_script;

/* Read PATH and scan it when it is a shell script: run by a shell (BY_SHELL), named *.sh or
 * *.bash, or starting with a #! line naming a shell; at most 1 MB, a regular file. False when
 * it is none of these or cannot be read (nothing to judge). Free with tf_script_free. */
bool tf_script_scan(const char *path, bool by_shell, tf_script *out);
void tf_script_free(tf_script *s);

#endif
