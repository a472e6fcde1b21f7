/* dll_api: libtestfence.dll driven as the plugin's python backend drives it through ctypes
 * (python/_testfence/startup.py, _start_python), on a throwaway project: the cwd, which
 * windows_dll.bats makes (ROOT/.git, ROOT/tests, a config with an [env] redirect). Run under
 * wine; prints what it found as NAME=VALUE lines for the .bats to check, and exits 1 when a
 * call the backend makes fails (each failure said on stderr). */
#include "testfence.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "dll_api: line %d: %s\n", __LINE__, #cond);                            \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static int is_dir(const char *p)
{
    struct stat st;
    return p && stat(p, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR;
}

int main(void)
{
    CHECK(tf_api_version() == TF_API_VERSION);

    /* The kernel backend: refused in tf_check with the words the plugin's auto mode falls
     * back on ("cannot enforce the fence"); tf_fence refuses too. */
    tf_session *k = tf_open();
    CHECK(tf_load(k, NULL, NULL, NULL, 0) == 0);
    CHECK(tf_check(k) < 0 && !strncmp(tf_error(k), "cannot enforce the fence", 24));
    printf("kernel_check=%s\n", tf_error(k));
    CHECK(tf_fence(k) < 0);
    printf("fence=%s\n", tf_error(k));
    tf_close(k);

    /* The python backend's sequence. */
    tf_session *s = tf_open();
    CHECK(s != NULL);
    CHECK(tf_set_backend(s, TF_BACKEND_SHIM) == 0);
    const char *none[] = {NULL};
    CHECK(tf_set_outputs(s, none, 0) == 0);
    if (tf_load(s, NULL, NULL, none, 0) < 0) {
        fprintf(stderr, "dll_api: tf_load: %s\n", tf_error(s));
        return 1;
    }
    printf("root=%s\n", tf_root(s));
    printf("config=%s\n", tf_config_source(s) ? tf_config_source(s) : "");
    printf("fence_dir=%s\n", tf_fence_dir(s) ? tf_fence_dir(s) : "");
    printf("landlock_abi=%d\n", tf_landlock_abi(s));
    int kind = 0;
    for (size_t i = 0; tf_policy_entry(s, i, &kind); i++)
        printf("entry=%d %s\n", kind, tf_policy_entry(s, i, &kind));
    if (tf_check(s) < 0) {
        fprintf(stderr, "dll_api: tf_check: %s\n", tf_error(s));
        return 1;
    }
    if (tf_prepare(s) < 0) {
        fprintf(stderr, "dll_api: tf_prepare: %s\n", tf_error(s));
        return 1;
    }
    const char *ws = tf_workspace(s), *tmp = tf_tmp(s);
    char wsc[4096], tmpc[4096];
    snprintf(wsc, sizeof wsc, "%s", ws ? ws : "");
    snprintf(tmpc, sizeof tmpc, "%s", tmp ? tmp : "");
    printf("workspace=%s\n", wsc);
    printf("tmp=%s\n", tmpc);
    printf("warning=%s\n", tf_warning(s) ? tf_warning(s) : "");
    CHECK(is_dir(ws));
    CHECK(is_dir(tmp));
    /* A test's file in the run's temp dir: gone at the end (the dir itself stays, emptied, as
     * on Linux: the next run prunes it). */
    char leftover[4096 + 16];
    snprintf(leftover, sizeof leftover, "%s/left.txt", tmpc);
    FILE *lf = fopen(leftover, "w");
    CHECK(lf != NULL);
    if (lf)
        fclose(lf);
    for (size_t i = 0; i < tf_env_count(s); i++)
        printf("env=%s=%s\n", tf_env_name(s, i), tf_env_value(s, i));

    /* The verdicts the plugin asks for at start-up (_check_outputs, _refuse_planted_imports),
     * with paths as Python on Windows writes them: backslashes, a drive. */
    char in[4096], out[4096], mod[4096], res[4096];
    snprintf(in, sizeof in, "%s\\tests\\report.xml", tf_root(s));
    snprintf(out, sizeof out, "%s\\tests\\..\\report.xml", tf_root(s));
    int v_in = tf_path_check(s, in, 0, res, sizeof res);
    printf("check_in=%d %s\n", v_in, res);
    int v_out = tf_path_check(s, out, 0, res, sizeof res);
    printf("check_out=%d %s\n", v_out, res);
    CHECK(v_in == TF_PATH_WRITABLE && v_out == TF_PATH_OUTSIDE);
    snprintf(mod, sizeof mod, "%s\\tests\\conftest.py", tf_root(s));
    FILE *mf = fopen(mod, "w");
    CHECK(mf != NULL);
    if (mf)
        fclose(mf);
    char mods[3 * 4096];
    size_t ml = 0;
    ml += (size_t)snprintf(mods + ml, sizeof mods - ml, "%s", mod) + 1;
    ml += (size_t)snprintf(mods + ml, sizeof mods - ml, "%s\\pyproject.toml", tf_root(s)) + 1;
    ml += (size_t)snprintf(mods + ml, sizeof mods - ml, "%s", "frozen") + 1;
    unsigned char inside[3] = {9, 9, 9};
    CHECK(tf_files_inside(s, mods, ml, inside, 3) == 0);
    printf("files_inside=%d%d%d\n", inside[0], inside[1], inside[2]);
    CHECK(inside[0] == 1 && inside[1] == 0 && inside[2] == 0);
    remove(mod);

    /* What the audit hook refused, recorded and read back as the plugin reads it. */
    char outside[4096];
    snprintf(outside, sizeof outside, "%s/config.toml", tf_root(s));
    CHECK(tf_violations_load(s) == 0);
    CHECK(tf_status(s, 0) == 0);
    CHECK(tf_record(s, "open", "../config.toml", outside, EACCES, 1,
                    "tests/test_clobber.py::test_writes_config", "call") == 0);
    long n = tf_violations_load(s);
    CHECK(n == 1);
    printf("violations=%ld\n", n);
    if (n == 1) {
        printf("v_test=%s\n", tf_violation_str(s, 0, "test"));
        printf("v_op=%s\n", tf_violation_str(s, 0, "op"));
        printf("v_resolved=%s\n", tf_violation_str(s, 0, "resolved"));
        printf("v_blocked_by=%s\n", tf_violation_str(s, 0, "blocked_by"));
        printf("v_line=%s\n", tf_violation_line(s, 0));
        CHECK(tf_violation_int(s, 0, "errno") == EACCES);
    }
    int planted = -1;
    char *p = tf_planted(s, &planted);
    CHECK(p != NULL && planted == 0);
    tf_free(p);
    int status = tf_status(s, 0);
    printf("status=%d\n", status);
    CHECK(status == 120);
    char *sum = tf_summary(s, status);
    CHECK(sum != NULL);
    printf("summary<<\n%s>>\n", sum ? sum : "");
    tf_free(sum);
    /* What the end of the run warned of (old runs that could not be pruned, ...). */
    const char *w = tf_warning(s);
    printf("warnings_end<<\n%s>>\n", w ? w : "");
    CHECK(tf_end_tmp(s, TF_TMP_REMOVE) == 0);
    struct stat st;
    printf("tmp_after=%s\n", !is_dir(tmpc)              ? "gone"
                             : stat(leftover, &st) == 0 ? "not emptied"
                                                        : "emptied");
    tf_close(s);
    printf("failures=%d\n", failures);
    return failures ? 1 : 0;
}
