/* test_outpath: a CI output's directory is reached through symlinks outside the writable
 * set, never through one inside it, and the file replaces whatever link is at its name. */
#include "check.h"

#include "core/outpath.h"
#include "core/path.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX];

static void fill(FILE *f, const void *ctx)
{
    fputs(ctx, f);
}

/* Open GIVEN against POLICY and write TEXT there; 0 on success. */
static int put(const char *given, const struct policy *p, const char *text, char *msg, size_t len)
{
    struct outpath o;
    tf_err err = {0};
    int rc = outpath_open(&o, given, p, &err);
    if (rc == 0)
        rc = outpath_write(&o, fill, text, &err);
    outpath_close(&o);
    snprintf(msg, len, "%s", err.msg);
    return rc;
}

static char *at(const char *rel)
{
    static char buf[4][PATH_MAX + 64];
    static int k;
    char *b = buf[k++ % 4];
    snprintf(b, sizeof buf[0], "%s/%s", dir, rel);
    return b;
}

static bool holds(const char *path, const char *text)
{
    char got[64] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(got, 1, sizeof got - 1, f);
    got[n] = '\0';
    fclose(f);
    return !strcmp(got, text);
}

int main(void)
{
    struct policy p;
    tf_err err;
    char msg[sizeof(tf_err)], real[PATH_MAX];
    if (!check_tmpdir(real, sizeof real, "tf_outpath") || !realpath(real, dir))
        return perror("mkdtemp"), 1;
    mkdir(at("tests"), 0755);
    mkdir(at("reports"), 0755);
    mkdir(at("tests/sub"), 0755);
    CHECK(policy_init(&p, dir, &err) == 0);
    CHECK(policy_add(&p, "tests", POLICY_PROJECT, &err) == 0);

    /* Plain paths, absolute, relative, with "." and "..". */
    CHECK(put(at("reports/a.json"), &p, "a", msg, sizeof msg) == 0 &&
          holds(at("reports/a.json"), "a"));
    CHECK(chdir(at("tests/sub")) == 0);
    CHECK(put("../../reports/./b.json", &p, "b", msg, sizeof msg) == 0 &&
          holds(at("reports/b.json"), "b"));
    /* A symlink outside the writable set is followed, relative or absolute. */
    CHECK(symlink("reports", at("rel-link")) == 0);
    CHECK(symlink(at("reports"), at("abs-link")) == 0);
    CHECK(put(at("rel-link/c.json"), &p, "c", msg, sizeof msg) == 0 &&
          holds(at("reports/c.json"), "c"));
    CHECK(put(at("abs-link/d.json"), &p, "d", msg, sizeof msg) == 0 &&
          holds(at("reports/d.json"), "d"));
    /* One inside the writable set is refused, even deep in a chain. */
    CHECK(symlink(at("reports"), at("tests/planted")) == 0);
    CHECK(put(at("tests/planted/e.json"), &p, "e", msg, sizeof msg) < 0);
    CHECK(strstr(msg, "is a symlink inside the writable set") != NULL);
    CHECK(symlink("tests/planted", at("via")) == 0);
    CHECK(put(at("via/e.json"), &p, "e", msg, sizeof msg) < 0);
    CHECK(access(at("reports/e.json"), F_OK) < 0);
    /* A link at the file's name inside the writable set is replaced, never followed. */
    CHECK(symlink(at("reports/a.json"), at("tests/f.json")) == 0);
    CHECK(put(at("tests/f.json"), &p, "f", msg, sizeof msg) == 0);
    CHECK(holds(at("reports/a.json"), "a") && holds(at("tests/f.json"), "f"));
    /* Not a regular file at the name, outside the set: refused (a device, a link, a dir). */
    CHECK(put("/dev/null", &p, "x", msg, sizeof msg) < 0);
    CHECK(symlink(at("reports/a.json"), at("reports/mine.json")) == 0);
    CHECK(put(at("reports/mine.json"), &p, "x", msg, sizeof msg) < 0 &&
          holds(at("reports/a.json"), "a"));
    CHECK(put(at("reports"), &p, "x", msg, sizeof msg) < 0);
    /* Missing directories, names that are not files, loops. */
    CHECK(put(at("nowhere/g.json"), &p, "g", msg, sizeof msg) < 0 &&
          strstr(msg, "create it first"));
    CHECK(put(at("reports/"), &p, "g", msg, sizeof msg) < 0);
    CHECK(put("", &p, "g", msg, sizeof msg) < 0);
    CHECK(put(at("reports/.."), &p, "g", msg, sizeof msg) < 0);
    CHECK(symlink("loop", at("loop")) == 0);
    CHECK(put(at("loop/g.json"), &p, "g", msg, sizeof msg) < 0 && strstr(msg, "too many symlinks"));
    CHECK(put(at("reports/a.json/g.json"), &p, "g", msg, sizeof msg) < 0);
    /* A Python source is never replaced by a report (a slip: --junit tests/test_x.py). */
    FILE *src = fopen(at("tests/test_x.PY"), "w");
    CHECK(src && fputs("def test_x():\n    pass\n", src) >= 0 && fclose(src) == 0);
    CHECK(put(at("tests/test_x.PY"), &p, "g", msg, sizeof msg) < 0 &&
          strstr(msg, "refusing to write a report over a Python source"));
    char kept[64] = "";
    src = fopen(at("tests/test_x.PY"), "r");
    CHECK(src && fread(kept, 1, sizeof kept - 1, src) > 0 && fclose(src) == 0);
    CHECK_STR(kept, "def test_x():\n    pass\n"); /* the test as it was */
    /* The probe that the directory takes a file leaves nothing behind. */
    CHECK(put(at("reports/h.json"), &p, "h", msg, sizeof msg) == 0);
    DIR *d = opendir(at("reports"));
    for (struct dirent *e; d && (e = readdir(d));)
        CHECK(!strstr(e->d_name, ".probe") && !strstr(e->d_name, ".tmp"));
    if (d)
        closedir(d);

    policy_free(&p);
    return check_done("test_outpath");
}
