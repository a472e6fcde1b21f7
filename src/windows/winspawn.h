/* winspawn: a command started with a given token inside a Job Object, and waited for: its
 * arguments quoted as the C runtime splits them again, its environment as one block. */
#ifndef TESTFENCE_WINSPAWN_H
#define TESTFENCE_WINSPAWN_H

#include "base/err.h"

#include <stddef.h>
#include <windows.h>

/* ARGV as one command line (CommandLineToArgvW's rules: quotes around an argument with a
 * space, tab or quote, or an empty one; a quote escaped, and the backslashes before it
 * doubled), in a new wide string (free it). ARGV's strings are in the ANSI code page. */
wchar_t *winspawn_cmdline(char *const *argv);

/* ENVP ("NAME=VALUE"...) as a wide environment block, in a new string (free it). */
wchar_t *winspawn_envblock(char *const *envp);

/* Start ARGV with TOKEN, suspended, put it in JOB, let it run, and wait for it. *STATUS: its
 * exit code, or 127 (not found) / 126 (cannot be executed), said on stderr as on Linux.
 * 0, or -1 with ERR when it could not be put in the job (killed then, never run). */
int winspawn_run(HANDLE token, HANDLE job, char *const *argv, char *const *envp, int *status,
                 tf_err *err);

#endif
