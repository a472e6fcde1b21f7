/* testvar: the test variable's value split into the test's id and its phase, in one place,
 * so a write is filed under the same test whichever process records it. */
#include "testvar.h"

#include <stdbool.h>
#include <string.h>

/* pytest's three, and the plugin's while a module is imported (the phase of a collection). */
static const char *const phases[] = {"setup", "call", "teardown", "collect"};

/* Does VALUE (N bytes) end in " (PHASE)" with an id before it? */
static bool ends_in(const char *value, size_t n, const char *phase)
{
    size_t k = strlen(phase) + 3; /* " (" phase ")" */
    return n > k && value[n - 1] == ')' && !memcmp(value + n - k, " (", 2) &&
           !memcmp(value + n - k + 2, phase, k - 3);
}

const char *testvar_split(const char *value, size_t *test_len)
{
    size_t n = value ? strlen(value) : 0;
    for (size_t i = 0; i < sizeof phases / sizeof phases[0]; i++) {
        if (ends_in(value, n, phases[i])) {
            if (test_len)
                *test_len = n - strlen(phases[i]) - 3;
            return phases[i];
        }
    }
    if (test_len)
        *test_len = n;
    return NULL;
}

const char *testvar_cut(char *test)
{
    size_t n;
    const char *phase = testvar_split(test, &n);
    if (test)
        test[n] = '\0';
    return phase;
}
