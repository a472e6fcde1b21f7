/* hint: the one-line "How to fix" for a blocked write, from where it was aimed.
 * The shim prints it live and the report repeats it, so both say the same thing. */
#ifndef TESTFENCE_HINT_H
#define TESTFENCE_HINT_H

#include <stdbool.h>
#include <stddef.h>

/* A hint for a write OP (the record's, "open", "mount_setattr"...; may be NULL) to RESOLVED
 * (absolute) in the project ROOT, with HOME the user's home directory (may be NULL) and TEST
 * the test that made it (NULL: outside any test). It fits the runner: a pytest test hears of
 * tmp_path, make or ctest of writable and outputs, and a tool's known state (nyc, ctest's
 * Testing/, a report) is named; a change to the mounts, that no --allow can let through.
 * Never NULL; static text. */
const char *hint_for(const char *op, const char *resolved, const char *root, const char *home,
                     const char *test);

/* Does hint_for answer the write OP to RESOLVED from what it knows of a tool or a call (a mount,
 * tmpfile(), bytecode, pytest's cache, a tool's state or output), not from where the path is?
 * (testfence suggest: any other path is the user's.) */
bool hint_known_tool(const char *op, const char *resolved);

/* Who made a blocked write, for the violation line: the test, or, outside any
 * test, "EXE (pid N, outside any test)" with EXE's directory dropped; and with which call,
 * for the hint (a tmpfile() is not a path the program chose). */
struct hint_who {
    const char *test; /* NULL outside a test */
    const char *exe;
    long pid;
    const char *op;      /* the record's ("open", "tmpfile"...); NULL: not known */
    bool protected;      /* the target is a protected file of the user's (blocked_by "protect") */
    const char *cmdline; /* the program's argv joined with spaces; NULL: not known */
    /* Where in the project it came from (the record's source fields; NULL/0: unknown). */
    const char *src_file;
    long src_line;
    const char *src_func;
    const char *test_file;
    long test_line;
};

/* Where a blocked write came from, for people: "conftest.py:12 in pytest_configure", with
 * ", from tests/test_x.py:20" when the test's own line is another; the test's line alone when
 * only it is known. Printable (control characters replaced). Returns the length written, 0
 * (OUT "") when nothing is known. */
int hint_where(char *out, size_t len, const char *src_file, long src_line, const char *src_func,
               const char *test_file, long test_line);

/* The hint for a change to a protected file (protect in the config) at RESOLVED made by the
 * program EXE with the command line CMDLINE (each may be NULL): git and the snapshot tools
 * (syrupy, pytest-regressions, inline-snapshot, Jest), known by their switch or where they
 * keep their files, are named with the switch to use. Static text. */
const char *hint_protected(const char *exe, const char *resolved, const char *cmdline);

/* Is RESOLVED, a protected record's path, a directory on the way to protected files (the
 * shim ends such a name with "/")? */
bool hint_protected_dir(const char *resolved);

/* The seed's line, without a newline, every field made printable:
 * "TEST_SANDBOX_VIOLATION: WHO attempted to write to RESOLVED which is outside
 * FENCE. How to fix: HINT", and " (at WHERE)" (hint_where) when WHO says where. The shim prints it
 * live and the pytest plugin in its failures, so both entry points say the same thing. Returns
 * snprintf's. */
int hint_violation_line(char *out, size_t len, const struct hint_who *who, const char *resolved,
                        const char *fence, const char *root, const char *home);

/* LINE (from hint_violation_line) for a terminal: "TEST_SANDBOX_VIOLATION:" in red,
 * "How to fix:" in cyan. Returns snprintf's. */
int hint_paint(char *out, size_t len, const char *line);

#endif
