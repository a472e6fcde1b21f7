/* testfence.h: the public C API of libtestfence.so, to fence the calling process itself.
 * The pytest plugin drives it through ctypes; `testfence run` is built from the same modules. */
#ifndef TESTFENCE_H
#define TESTFENCE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a function's meaning changes; new functions keep it (a caller that needs
 * one, tf_test_split say, looks the symbol up: the version does not tell it is there). */
#define TF_API_VERSION 1

/* One project's fence, in one process. Not thread-safe: use it from one thread. */
typedef struct tf_session tf_session;

int tf_api_version(void);

/* A new, empty session; NULL only when out of memory. Free it with tf_close. */
tf_session *tf_open(void);
void tf_close(tf_session *s);

/* The message of the last failed call ("" when none); valid until the next call. */
const char *tf_error(const tf_session *s);

/* What kind of failure the last one was, for a caller that acts on it: */
#define TF_ERROR_OTHER 0
#define TF_ERROR_NO_ROOT 1 /* tf_load found no project root: nothing to fence from here */
/* tf_load: the project has no testfence configuration (built-in defaults) and no tests/
 * directory: it was never set up for testfence (an installed plugin may stand aside). */
#define TF_ERROR_NOT_SET_UP 2
int tf_error_kind(const tf_session *s);
/* The warnings so far the caller should show (the shim was not found, pytest configuration
 * in the writable set, an old run that could not be pruned): lines of text, each beginning
 * "testfence: warning: ", or NULL. The library prints nothing itself. */
const char *tf_warning(const tf_session *s);

/* Root (NULL: discover upward from the current directory), configuration (NULL:
 * testfence.toml, else [tool.testfence], else defaults; never an environment variable),
 * writable set (plus the NALLOW paths ALLOW), and the plan of a new run. Creates nothing.
 * A configuration error names FILE:LINE:COL. Returns 0 or -1. */
int tf_load(tf_session *s, const char *root, const char *config, const char *const *allow,
            size_t nallow);

/* Declared outputs for the next tf_load, as `run --output` takes them: files, or
 * directories when ending in '/', relative to the current directory. Returns 0 or -1. */
int tf_set_outputs(tf_session *s, const char *const *outputs, size_t n);

/* How the next tf_load's run is fenced: TF_BACKEND_KERNEL (the default: tf_fence, Landlock),
 * or TF_BACKEND_SHIM, for a caller that fences itself another way (the pytest plugin's python
 * backend: its audit hook refuses): tf_check then asks nothing of the kernel, tf_prepare builds
 * no ruleset, tf_fence refuses, and the shim's configuration for child processes has it refuse
 * their writes outside itself (run's --backend preload). Returns 0 or -1. */
#define TF_BACKEND_KERNEL 0
#define TF_BACKEND_SHIM 1
int tf_set_backend(tf_session *s, int backend);

/* Fail closed: -1 when this kernel cannot block every class of write, or when the
 * writable set holds a hazard (a hard link to a file outside it). */
int tf_check(tf_session *s);

/* Is the calling process already fenced (by `testfence run`, or a pytest it runs under)?
 * The kernel's word, from a probe that changes nothing outside the writable set (see
 * docs/plugin.md); never an environment variable. 1 yes, 0 no, -1 cannot tell (then fence
 * it). After tf_load. */
int tf_fenced(tf_session *s);

/* Create the run workspace (and its placeholders), prune old ones, and write the
 * shim's configuration for child processes. Returns 0 or -1. */
int tf_prepare(tf_session *s);

/* Restrict the calling process and all its future children for good (no_new_privs +
 * landlock_restrict_self). Landlock restricts the calling thread only, so it refuses
 * (-1) when the process runs more than one thread. */
int tf_fence(tf_session *s);

/* Join the run a parent process prepared in WORKSPACE (a pytest-xdist worker, a
 * nested pytest): reads its policy and violation log; creates and fences nothing. */
int tf_attach(tf_session *s, const char *workspace);

/* What tf_load planned (or tf_attach found). NULL when not applicable. */
const char *tf_root(const tf_session *s);
const char *tf_config_source(const tf_session *s);
const char *tf_workspace(const tf_session *s);
const char *tf_run_id(const tf_session *s);
const char *tf_basetemp(const tf_session *s); /* always NULL: pytest follows TMPDIR */
const char *tf_tmp(const tf_session *s);      /* the run's private temp dir (TMPDIR) */
/* Declared output I (0-based): a file or directory outside the writable set the run may
 * write; NULL past the last. */
const char *tf_output(const tf_session *s, size_t i);
const char *tf_pytest_cache(const tf_session *s); /* NULL: [pytest] cache_dir = false */
const char *tf_shim(const tf_session *s);         /* the preload shim, NULL if not found */
const char *tf_fence_dir(const tf_session *s);    /* "<root>/tests/", for messages */
int tf_landlock_abi(const tf_session *s);
/* Entry I (0-based) of the writable set the fence is built from (tf_load's plan, or the run
 * tf_attach joined): absolute, symlinks resolved; first the writable entries (the project's,
 * --allow, the system set, the run's temp dir, declared outputs), then the harmless tool state
 * (refused, never reported). *KIND (when not NULL) is their TF_ENTRY_* bits. NULL past the
 * last. For a caller that decides writes itself (the plugin's python backend). */
const char *tf_policy_entry(const tf_session *s, size_t i, int *kind);
#define TF_ENTRY_DIR 1      /* a directory: writes beneath it too; else that file only */
#define TF_ENTRY_QUIET 2    /* harmless tool state: refused quietly, not writable */
#define TF_ENTRY_COMMANDS 4 /* quiet only while its tool runs some subcommands (git describe) */

/* The environment changes of the run, as the final values given the environment
 * at tf_load time (appended values already joined). */
size_t tf_env_count(const tf_session *s);
const char *tf_env_name(const tf_session *s, size_t i);
const char *tf_env_value(const tf_session *s, size_t i);

/* May PATH be written? 1 yes, 0 outside the writable set, 2 outside it but harmless tool
 * state (git's index lock, ...: the kernel refuses it, nobody reports it), -1 error. NOFOLLOW: the
 * call acts on the last component itself (unlink, rename, mkdir, O_EXCL). The
 * resolved path is copied to RESOLVED (LEN bytes) when not NULL. */
int tf_path_check(tf_session *s, const char *path, int nofollow, char *resolved, size_t len);

/* Flags of tf_path_check_at. */
#define TF_PATH_NOFOLLOW 1 /* the call acts on a final symlink itself (unlink, rename, O_EXCL) */
#define TF_PATH_EMPTY 2    /* an empty PATH names DIRFD itself: fchmod(fd), os.utime(fd) */

/* tf_path_check and tf_path_check_at's answers (and -1: cannot tell). */
#define TF_PATH_OUTSIDE 0  /* outside the writable set: refused, reported */
#define TF_PATH_WRITABLE 1 /* inside it, or nothing that could change */
#define TF_PATH_QUIET 2    /* outside it, harmless tool state: refused, never reported */

/* May the target of PATH relative to DIRFD (AT_FDCWD, -100: the cwd) be changed? Resolved
 * as the kernel would for this process (/proc/self, /dev/fd/N, dirfds, any depth).
 * 1 yes: inside the writable set, no file at all (a pipe, a socket), or a call the kernel
 * fails anyway (a closed fd, a missing directory); 0 outside the writable set; 2 outside
 * it but harmless tool state (pytest-benchmark's .benchmarks: the kernel refuses it, nobody
 * reports it); -1 when it
 * cannot be told (tf_error says why): a caller deciding a write must refuse it. The resolved
 * path (or PATH as given) is copied to RESOLVED (LEN bytes) when not NULL. */
int tf_path_check_at(tf_session *s, int dirfd, const char *path, int flags, char *resolved,
                     size_t len);

/* Which of N files lie where a test could have written them (the tripwire for modules a
 * Python imported before the fence): PATHS holds N absolute paths, each ended by a NUL (LEN
 * bytes in all); INSIDE[i] is set to 1 when path i is inside the writable set or cannot be
 * told (fail closed), 0 when it is outside or not absolute. A plain file is judged by its
 * directory; a link, or a path that is gone or lies in an archive, by its nearest existing
 * part, links followed. 0, or -1 when PATHS holds fewer than N paths. */
int tf_files_inside(tf_session *s, const char *paths, size_t len, unsigned char *inside, size_t n);

/* What an ioctl request REQUEST does to the file it is made on, for a caller that judges
 * ioctls itself (the plugin's audit hook): 0 nothing outside the writable set can change
 * (terminal control, queries), 1 refused on any file (TIOCSTI: typing into the terminal),
 * 2 it may change the file (inode flags, labels): refused on a file outside the writable
 * set, which tf_path_check_at with TF_PATH_EMPTY tells. */
int tf_ioctl_class(unsigned long request);
#define TF_IOCTL_HARMLESS 0 /* tf_ioctl_class's answers */
#define TF_IOCTL_REFUSED 1
#define TF_IOCTL_JUDGED 2

/* The test variable's value VALUE (PYTEST_CURRENT_TEST: "tests/t.py::test_x (call)") split
 * as the shim splits it for its records: returns the phase, "setup", "call", "teardown" or
 * "collect" (the plugin's while a module is imported; a static string), and sets *TEST_LEN
 * (when not NULL) to the length of the test's id before it. NULL, and the whole length, when
 * VALUE ends in no phase or is nothing but one (a NULL VALUE: length 0). Needs no session. */
const char *tf_test_split(const char *value, size_t *test_len);

/* Append a record of a blocked write to the run's violation log, as the shim does for
 * child processes. TEST and PHASE may be NULL (tf_test_split gives both). BY_US: refused by the
 * caller itself (not by the kernel). Returns 0 or -1. */
int tf_record(tf_session *s, const char *op, const char *path, const char *resolved, int err,
              int by_us, const char *test, const char *phase);

/* tf_record with where in the project the write came from (the record's optional source
 * fields: docs/diagnostics.md): SRC_FILE:SRC_LINE in SRC_FUNC, the innermost frame in the
 * project, and TEST_FILE:TEST_LINE, the test function's own line. Each file relative to the
 * project root inside it, else absolute; NULL (or a line < 1) leaves its pair out. */
int tf_record_at(tf_session *s, const char *op, const char *path, const char *resolved, int err,
                 int by_us, const char *test, const char *phase, const char *src_file,
                 long src_line, const char *src_func, const char *test_file, long test_line);

/* Read the violation log (again, from the start); returns the number of records or -1. */
long tf_violations_load(tf_session *s);
/* A field of record I: "time" "test" "phase" "op" "path" "resolved" "error" "blocked_by"
 * "exe", "src_file" "src_func" "test_file"; NULL when absent or unknown. */
const char *tf_violation_str(const tf_session *s, size_t i, const char *field);
/* "pid", "errno", "src_line" or "test_line" (0: unknown); -1 when unknown. */
long tf_violation_int(const tf_session *s, size_t i, const char *field);
/* The one-line "TEST_SANDBOX_VIOLATION: ... How to fix: ..." for record I. */
const char *tf_violation_line(tf_session *s, size_t i);

/* At the end of the run: what it left in the writable set that would switch the next run's
 * fence off or make it refuse (a module shadowing pytest or testfence, a .pth file, pytest
 * configuration turning the plugin off), as malloc'd text ("" for nothing; free with
 * tf_free), and in *COUNT how many (what could not be checked counts as one). A caller that
 * gets *COUNT > 0 fails the run (exit 120, as testfence run does). NULL on error. */
char *tf_planted(tf_session *s, int *count);

/* The end of the run: the summary grouped by test (malloc'd text, "" for a clean run;
 * free with tf_free) and report.json in the workspace, whose status is STATUS, or 120 when
 * STATUS is 0 and the run left a hazard (checked here unless tf_planted did; its text is
 * then in the summary). May be called again for records that came late. NULL on error. */
char *tf_summary(tf_session *s, int status);

/* The status the run exits with, as `testfence run` decides it: STATUS (the tests' own), or
 * 120 when STATUS is 0 but writes were blocked or the tests left a hazard (after
 * tf_planted). -1 on error. */
int tf_status(tf_session *s, int status);

/* Would the kernel refuse the write OP (open, mkdir, symlink, link, rename, unlink, rmdir,
 * truncate) to RESOLVED (absolute, as tf_path_check_at named it) before the fence is asked
 * (EEXIST, ENOENT, EISDIR)? OFLAGS: open(2)'s; SOURCE (or NULL), relative to SOURCE_DIRFD: a
 * rename's old name. 1: it fails on its own, nothing to report; 0: no, or cannot tell. */
int tf_fails_first(const char *op, int oflags, const char *resolved, int source_dirfd,
                   const char *source);

/* At the caller's very end (after every exit handler that may still use its temp files):
 * the run's private temp dir emptied (TF_TMP_REMOVE: a fenced process may not remove it; the
 * next run prunes it), or marked kept (TF_TMP_KEEP: until removed by hand; TF_TMP_KEEP_FAILED:
 * the run failed, later runs keep the newest few such), which tf_warning then says. Once;
 * 0 or -1. */
#define TF_TMP_REMOVE 0
#define TF_TMP_KEEP 1
#define TF_TMP_KEEP_FAILED 2
int tf_end_tmp(tf_session *s, int keep);
void tf_free(void *p);

/* The pytest plugin's audit hook, filtered here (CPython 3.11 and later). CPython calls every
 * audit hook for every audit event of the process, builtins.id and object.__getattr__
 * included (110,000 in itsdangerous' suite, which uses freezegun), and one written in Python
 * cost 160 ns a call over none; the plugin watches a few events. It registers tf_audit_filter
 * with PySys_AddAuditHook (DATA unused), which calls CALLABLE(event, args) for the NEVENTS
 * events EVENTS names only, only in the interpreter INTERPRETER (a callable of one interpreter
 * must not run in another), with tracing off around the call, as CPython runs the hooks of
 * sys.addaudithook; until CPython drops it, as it clears the interpreter at exit. The Python
 * calls it makes, found by the caller in the running Python (dlsym, ctypes.pythonapi): */
typedef struct tf_python_api {
    void *(*call_function)(void *callable, const char *format, ...); /* PyObject_CallFunction */
    void (*dec_ref)(void *object);                                   /* Py_DecRef */
    void *(*interpreter)(void);                                      /* PyInterpreterState_Get */
    void *(*thread_state)(void);                                     /* PyThreadState_Get */
    void (*enter_tracing)(void *tstate); /* PyThreadState_EnterTracing (3.11) */
    void (*leave_tracing)(void *tstate); /* PyThreadState_LeaveTracing (3.11) */
} tf_python_api;
/* Once a process (a hook cannot be removed), before registering it; CALLABLE must live as
 * long as the process (the caller holds a reference it never drops). 0, or -1 when called
 * again or missing a call of API, given more than 64 events or a name longer than 63 bytes. */
int tf_audit_filter_set(const tf_python_api *api, void *interpreter, void *callable,
                        const char *const *events, size_t nevents);
/* The hook: 0 for an event not watched or after CALLABLE returned, -1 (Python's exception
 * set) when CALLABLE raised: CPython then fails the audited call with it. */
int tf_audit_filter(const char *event, void *args, void *data);

#ifdef __cplusplus
}
#endif

#endif
