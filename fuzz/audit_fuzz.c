/* audit_fuzz: libFuzzer target over the Python parser, the rules and every output format.
 * Any input must give findings without crashing, leaking or reading out of bounds. */
#include "audit/audit.h"
#include "audit/audit_output.h"
#include "audit/audit_python.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const protected_names[] = {"config.toml", "credentials.toml", ".env",
                                              "manual_slop.toml"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Every allocation is freed within the input, so libFuzzer's per-input leak check is
     * exact. */
    static FILE *sink;
    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    tf_audit_cfg cfg = {.root = "/proj",
                        .tests_dir = "tests",
                        .artifacts_dir = "tests/artifacts",
                        .protected_names = protected_names,
                        .n_protected = 4,
                        .rules = ~0u,
                        .home = "/home/u"};
    tf_audit_result res = {0};
    tf_err err;
    /* A copy without a terminator, so reads past the end are caught. */
    char *src = malloc(size ? size : 1);
    if (!src)
        abort();
    for (size_t i = 0; i < size; i++)
        src[i] = (char)data[i];
    if (tf_audit_source(&cfg, &tf_audit_python, "/proj/tests/sub/test_fuzz.py", src, size, &res,
                        &err) == 0) {
        tf_audit_sort(&res);
        tf_audit_report rep = {&res, &cfg, "fuzz", false, size % 7 == 6};
        /* One format per input keeps the run fast; the input picks which. */
        tf_audit_print(sink, (tf_audit_format)(size % TF_AUDIT_FORMAT_COUNT), &rep);
    }
    tf_audit_result_free(&res);
    free(src);
    return 0;
}
