/* Unit tests for src/core/pymodules.c: every name of the generated list is found (so the list
 * is in the order bsearch needs), and names that are no module are not. */
#include "check.h"
#include "core/pymodules.h"

#include <string.h>

static const char *const all[] = {
#include "core/pymodules_list.h"
};

int main(void)
{
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        CHECK(pymodule_known(all[i]));
        if (i > 0)
            CHECK(strcmp(all[i - 1], all[i]) < 0);
    }
    CHECK(pymodule_known("argparse") && pymodule_known("iniconfig") && pymodule_known("_pytest"));
    CHECK(pymodule_known("_colorize")); /* a newer Python's, kept by the generator */
    CHECK(!pymodule_known("test_settings") && !pymodule_known("helpers") && !pymodule_known(""));
    return check_done("test_pymodules");
}
