/* hint: the one-line "How to fix" for a blocked write, from where it was aimed.
 * The shim prints it live and the report repeats it, so both say the same thing. */
#ifndef TESTFENCE_HINT_H
#define TESTFENCE_HINT_H

/* A hint for a write to RESOLVED (absolute) in the project ROOT, with HOME the
 * user's home directory (may be NULL). Never NULL; static text. */
const char *hint_for(const char *resolved, const char *root, const char *home);

#endif
