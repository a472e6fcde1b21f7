/* testvar: the one reader of the test variable's value (PYTEST_CURRENT_TEST, or [report]
 * test_env), for every record: the shim's, run's of a leftover process, the plugin's. */
#ifndef TESTFENCE_TESTVAR_H
#define TESTFENCE_TESTVAR_H

#include <stddef.h>

/* The phase VALUE ends in, and the length of the test's id before it: for
 * "tests/t.py::test_x (call)", "call" and 18. The phases are pytest's (setup, call,
 * teardown) and "collect", the plugin's while a module is imported; static strings. A VALUE
 * that ends in none of them, or is nothing but one, gives NULL and its whole length. */
const char *testvar_split(const char *value, size_t *test_len);

/* testvar_split in place: TEST is cut to the test's id; returns the phase or NULL. */
const char *testvar_cut(char *test);

#endif
