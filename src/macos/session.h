/* session: the run lifecycle of the macOS build. There is none yet: `run` refuses, with
 * the one message and exit status below (docs/platforms.md); the names options need are here. */
#ifndef TESTFENCE_MACOS_SESSION_H
#define TESTFENCE_MACOS_SESSION_H

#include <stdio.h>

/* The same values as linux/session.h: the option table parses them on every OS. */
enum session_backend {
    SESSION_LANDLOCK,
    SESSION_PRELOAD,
    SESSION_NONE,
};

enum session_keep_tmp {
    KEEP_TMP_ON_FAILURE,
    KEEP_TMP_ALWAYS,
    KEEP_TMP_NEVER,
};

/* The backend named NAME ("landlock", "preload", "none"), or -1. */
int session_backend_of(const char *name);

/* Why `run` is refused on this OS, one line without a newline. */
extern const char session_unavailable[];

/* This OS's name in messages ("macOS"). */
extern const char session_os[];

#endif
