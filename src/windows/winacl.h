/* winacl: the per-run SID of `testfence run` on Windows, and the ACEs granting it write on the
 * writable set: added at a run's start, removed at its end; what killed runs left, swept. */
#ifndef TESTFENCE_WINACL_H
#define TESTFENCE_WINACL_H

#include "base/err.h"

#include <stdbool.h>
#include <stdio.h>
#include <windows.h>

/* The first sub-authority of every run SID (S-1-9-1952869987-...: "tfnc"), under the
 * resource manager authority (9), which no account or group of Windows uses. */
#define WINACL_MAGIC 0x74666e63u

/* This run's SID, S-1-9-<magic>-<pid>-<creation time, high>-<low> of this process: unique
 * while the process lives, and a left ACE names a run known to be over once it is gone.
 * Free it with FreeSid. 0, or -1 with ERR. */
int winacl_run_sid(PSID *sid, tf_err *err);

/* SID as text ("S-1-9-..."), into OUT. */
void winacl_sid_text(PSID sid, char *out, size_t len);

/* Is SID a run SID (the magic), and is its run still going (its process alive)? */
bool winacl_is_run_sid(PSID sid);
bool winacl_run_alive(PSID sid);

/* Grant SID read, write and delete on PATH (a directory: inherited by all beneath it, those
 * there now included), in an explicit ACE beside the DACL's others. 0, or -1 with ERR. */
int winacl_grant(const char *path, bool is_dir, PSID sid, tf_err *err);

/* Remove PATH's explicit ACEs naming SID (what inherited them loses them too). 0, or -1. */
int winacl_revoke(const char *path, PSID sid, tf_err *err);

/* Remove PATH's explicit ACEs naming a run SID whose run is over (killed runs leave them);
 * *REMOVED counts them. 0, or -1 with ERR. */
int winacl_sweep(const char *path, int *removed, tf_err *err);

#endif
