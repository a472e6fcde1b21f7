/* session_names: what a run's options name on every OS (the backend, the temp dir's end), for
 * the one option table, and what an OS without a run lifecycle says in its place. */
#ifndef TESTFENCE_SESSION_NAMES_H
#define TESTFENCE_SESSION_NAMES_H

enum session_backend {
    SESSION_LANDLOCK, /* the kernel fences; the shim only reports */
    SESSION_PRELOAD,  /* no kernel fence: the shim refuses writes itself (weaker) */
    SESSION_NONE,     /* unfenced */
};

/* The run's private temp dir at its end. */
enum session_keep_tmp {
    KEEP_TMP_ON_FAILURE, /* kept when the run failed (its status not 0), else removed */
    KEEP_TMP_ALWAYS,     /* --keep-tmp */
    KEEP_TMP_NEVER,      /* --no-keep-tmp */
};

/* The backend named NAME ("landlock", "preload", "none"), or -1. */
int session_backend_of(const char *name);

/* The name of the backend B, as session_backend_of takes it. */
const char *session_backend_name(enum session_backend b);

/* Where `run` has no lifecycle yet (Windows, macOS: defined in that OS's session.c, see
 * docs/platforms.md): why it is refused, one line without a newline, and the OS's name. */
extern const char session_unavailable[];
extern const char session_os[];

#endif
