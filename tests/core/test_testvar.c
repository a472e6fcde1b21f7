/* test_testvar: the one parser of the test variable: pytest's phases, the plugin's "collect",
 * and values that only look like them. */
#include "check.h"

#include "core/testvar.h"

/* VALUE splits into the id WANT_TEST and WANT_PHASE (NULL: no phase), both ways. */
static void split_is(const char *value, const char *want_test, const char *want_phase)
{
    size_t n = 12345;
    const char *phase = testvar_split(value, &n);
    CHECK(want_phase ? phase && !strcmp(phase, want_phase) : !phase);
    CHECK(n == strlen(want_test) && !strncmp(value, want_test, n));
    char buf[256];
    snprintf(buf, sizeof buf, "%s", value);
    phase = testvar_cut(buf);
    CHECK(want_phase ? phase && !strcmp(phase, want_phase) : !phase);
    CHECK_STR(buf, want_test);
}

static void phases(void)
{
    split_is("tests/t.py::test_x (setup)", "tests/t.py::test_x", "setup");
    split_is("tests/t.py::test_x (call)", "tests/t.py::test_x", "call");
    split_is("tests/t.py::test_x (teardown)", "tests/t.py::test_x", "teardown");
    /* The plugin's while a module is imported: the module's collection, not a test. */
    split_is("tests/t.py (collect)", "tests/t.py", "collect");
    split_is("tests/t.py::test_p[a b (call)] (call)", "tests/t.py::test_p[a b (call)]", "call");
    /* Only the last suffix is the phase. */
    split_is("t.py::x (call) (teardown)", "t.py::x (call)", "teardown");
}

static void not_phases(void)
{
    split_is("tests/t.py::test_x", "tests/t.py::test_x", NULL);
    split_is("tests/t.py::test_x (run)", "tests/t.py::test_x (run)", NULL);
    split_is("tests/t.py::test_x(call)", "tests/t.py::test_x(call)", NULL);
    split_is("tests/t.py::test_x (call", "tests/t.py::test_x (call", NULL);
    split_is("tests/t.py::test_x (Call)", "tests/t.py::test_x (Call)", NULL);
    split_is("tests/t.py::test_x (call) ", "tests/t.py::test_x (call) ", NULL);
    /* Nothing but a suffix names no test: kept whole, as the id. */
    split_is(" (call)", " (call)", NULL);
    split_is("(call)", "(call)", NULL);
    split_is("", "", NULL);
    size_t n = 7;
    CHECK(!testvar_split(NULL, &n) && n == 0);
    CHECK(!testvar_cut(NULL));
    CHECK(testvar_split("a (call)", NULL) && !strcmp(testvar_split("a (call)", NULL), "call"));
}

int main(void)
{
    phases();
    not_phases();
    return check_done("test_testvar");
}
