/* test_vlog: the violation record: format, caps, escaping, and the parser against forged input. */
#include "check.h"

#include <limits.h>
#include "core/vlog.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static struct vlog_record sample(void)
{
    struct vlog_record r = {
        .time = "2026-11-29T10:14:38.123Z",
        .pid = 4242,
        .test = "tests/test_cfg.py::test_save",
        .phase = "call",
        .op = "open64",
        .path = "manual_slop.toml",
        .resolved = "/p/manual_slop.toml",
        .err = 13,
        .blocked_by = "kernel",
        .exe = "/usr/bin/python3.11",
        .cmdline = "python3 -m pytest",
    };
    return r;
}

static int parse(const char *line, struct vlog_record *r, char *scratch)
{
    return vlog_parse(line, strlen(line), r, scratch);
}

static void roundtrip(void)
{
    char line[VLOG_MAX], scratch[VLOG_MAX];
    struct vlog_record r = sample(), back;
    size_t n = vlog_format(line, sizeof line, &r);
    CHECK(n > 0 && line[n - 1] == '\n');
    CHECK(strstr(line, "\"error\":\"EACCES\"") != NULL);
    CHECK(vlog_parse(line, n - 1, &back, scratch) == 0);
    CHECK_STR(back.test, "tests/test_cfg.py::test_save");
    CHECK_STR(back.resolved, "/p/manual_slop.toml");
    CHECK_STR(back.op, "open64");
    CHECK(back.pid == 4242 && back.err == 13 && !back.truncated);
    r.test = NULL;
    n = vlog_format(line, sizeof line, &r);
    CHECK(vlog_parse(line, n - 1, &back, scratch) == 0 && back.test == NULL);
    CHECK(back.src_file == NULL && back.src_line == 0 && back.test_file == NULL);
    CHECK(strstr(line, "src_") == NULL && strstr(line, "test_file") == NULL);
}

/* The source fields: written when known, read back; a file without its line is not. */
static void where(void)
{
    char line[VLOG_MAX], scratch[VLOG_MAX];
    struct vlog_record r = sample(), back;
    r.src_file = "conftest.py";
    r.src_line = 12;
    r.src_func = "pytest_configure";
    r.test_file = "tests/test_cfg.py";
    r.test_line = 7;
    size_t n = vlog_format(line, sizeof line, &r);
    CHECK(strstr(line, "\"src_file\":\"conftest.py\",\"src_line\":12,"
                       "\"src_func\":\"pytest_configure\"") != NULL);
    CHECK(vlog_parse(line, n - 1, &back, scratch) == 0);
    CHECK_STR(back.src_file, "conftest.py");
    CHECK_STR(back.src_func, "pytest_configure");
    CHECK_STR(back.test_file, "tests/test_cfg.py");
    CHECK(back.src_line == 12 && back.test_line == 7);
    r.src_line = 0; /* no line: no source at all */
    r.test_file = "";
    n = vlog_format(line, sizeof line, &r);
    CHECK(strstr(line, "src_") == NULL && strstr(line, "test_file") == NULL);
    /* Forged pairs are dropped, the record kept. */
    const char *half = "{\"v\":1,\"pid\":7,\"op\":\"open\",\"resolved\":\"/x\",\"errno\":13,"
                       "\"blocked_by\":\"kernel\",\"src_file\":\"a.py\",\"src_func\":\"f\","
                       "\"test_line\":3,\"test_file\":\"t.py\"}";
    CHECK(parse(half, &back, scratch) == 0 && back.src_file == NULL && back.src_func == NULL);
    CHECK_STR(back.test_file, "t.py");
    CHECK(back.test_line == 3);
    const char *huge = "{\"v\":1,\"pid\":7,\"op\":\"open\",\"resolved\":\"/x\",\"errno\":13,"
                       "\"blocked_by\":\"kernel\",\"src_file\":\"a.py\",\"src_line\":-4}";
    CHECK(parse(huge, &back, scratch) == 0 && back.src_file == NULL && back.src_line == 0);
    const char *typed = "{\"v\":1,\"pid\":7,\"op\":\"open\",\"resolved\":\"/x\",\"errno\":13,"
                        "\"blocked_by\":\"kernel\",\"src_line\":\"12\"}";
    CHECK(parse(typed, &back, scratch) < 0);
}

/* Fields of any size and content keep a record under PIPE_BUF and valid. */
static void caps_and_escapes(void)
{
    char big[20000], line[VLOG_MAX], scratch[VLOG_MAX];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    big[5] = '\n';
    big[6] = '\x1b';
    big[7] = '"';
    big[8] = (char)0xff; /* invalid UTF-8 */
    struct vlog_record r = sample(), back;
    r.test = r.path = r.resolved = r.exe = r.cmdline = big;
    r.src_file = r.src_func = r.test_file = big;
    r.src_line = r.test_line = VLOG_LINE_NO_MAX;
    big[0] = '/';
    size_t n = vlog_format(line, sizeof line, &r);
    CHECK(n <= VLOG_MAX);
    CHECK(vlog_parse(line, n - 1, &back, scratch) == 0);
    CHECK(back.truncated);
    CHECK(back.test && back.test[5] == '\n' && back.test[6] == '\x1b' && back.test[7] == '"');
    CHECK(!strncmp(back.test + 8, "\xef\xbf\xbd", 3)); /* U+FFFD */
    CHECK(back.src_line == VLOG_LINE_NO_MAX && back.test_line == VLOG_LINE_NO_MAX);
    CHECK(back.src_func && back.test_file);
    /* A multi-byte character is never cut in half. */
    char euro[3000];
    for (size_t i = 0; i + 3 < sizeof euro; i += 3)
        memcpy(euro + i, "\xe2\x82\xac", 3);
    euro[sizeof euro - 3] = '\0';
    r.test = euro;
    n = vlog_format(line, sizeof line, &r);
    CHECK(vlog_parse(line, n - 1, &back, scratch) == 0 && strlen(back.test) % 3 == 0);
}

static void forged(void)
{
    char scratch[VLOG_LINE_MAX + 1];
    struct vlog_record r;
    const char *ok = "{\"v\":1,\"pid\":7,\"op\":\"open\",\"resolved\":\"/x\",\"errno\":13,"
                     "\"blocked_by\":\"kernel\"}";
    CHECK(parse(ok, &r, scratch) == 0 && r.test == NULL && r.path == NULL);
    const char *bad[] = {
        "",
        "{",
        "not json",
        "[1,2]",
        /* truncated mid-record */
        "{\"v\":1,\"pid\":7,\"op\":\"open\",\"resolved\":\"/x\",\"errno\":13,\"blocked_by\":\"ker",
        /* missing keys, wrong version, wrong types */
        "{\"v\":1,\"pid\":7,\"op\":\"open\",\"errno\":13,\"blocked_by\":\"kernel\"}",
        "{\"v\":2,\"pid\":7,\"op\":\"open\",\"resolved\":\"/"
        "x\",\"errno\":13,\"blocked_by\":\"kernel\"}",
        "{\"v\":1,\"pid\":\"7\",\"op\":\"open\",\"resolved\":\"/"
        "x\",\"errno\":13,\"blocked_by\":\"kernel\"}",
        "{\"v\":1,\"pid\":7,\"op\":\"open\",\"resolved\":\"/"
        "x\",\"errno\":1.5,\"blocked_by\":\"kernel\"}",
        /* duplicate key: a forged record overriding a real field */
        "{\"v\":1,\"pid\":7,\"op\":\"open\",\"resolved\":\"/x\",\"resolved\":\"/y\",\"errno\":13,"
        "\"blocked_by\":\"kernel\"}",
        /* out-of-range values, a terminal escape in the op, a relative path */
        "{\"v\":1,\"pid\":-1,\"op\":\"open\",\"resolved\":\"/"
        "x\",\"errno\":13,\"blocked_by\":\"kernel\"}",
        "{\"v\":1,\"pid\":7,\"op\":\"open\",\"resolved\":\"/x\",\"errno\":99999999999999999999,"
        "\"blocked_by\":\"kernel\"}",
        "{\"v\":1,\"pid\":7,\"op\":\"o\\u001b[31m\",\"resolved\":\"/"
        "x\",\"errno\":13,\"blocked_by\":\"kernel\"}",
        "{\"v\":1,\"pid\":7,\"op\":\"open\",\"resolved\":\"x\",\"errno\":13,\"blocked_by\":"
        "\"kernel\"}",
        "{\"v\":1,\"pid\":7,\"op\":\"open\",\"resolved\":\"/"
        "x\",\"errno\":13,\"blocked_by\":\"me\"}",
        /* nesting, raw control characters, NUL escapes, trailing garbage */
        "{\"v\":1,\"pid\":7,\"op\":\"open\",\"resolved\":\"/"
        "x\",\"errno\":13,\"blocked_by\":\"kernel\","
        "\"test\":{\"a\":1}}",
        "{\"v\":1,\"pid\":7,\"op\":\"open\",\"resolved\":\"/"
        "x\ty\",\"errno\":13,\"blocked_by\":\"kernel\"}",
        "{\"v\":1,\"pid\":7,\"op\":\"open\",\"resolved\":\"/"
        "x\\u0000\",\"errno\":13,\"blocked_by\":\"kernel\"}",
        "{\"v\":1,\"pid\":7,\"op\":\"open\",\"resolved\":\"/"
        "x\",\"errno\":13,\"blocked_by\":\"kernel\"} x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (parse(bad[i], &r, scratch) == 0)
            fprintf(stderr, "accepted: %s\n", bad[i]);
        CHECK(parse(bad[i], &r, scratch) < 0);
    }
    /* Unknown keys are a newer writer's: skipped. Surrogate pairs decode. */
    const char *newer =
        "{\"v\":1,\"x\":true,\"pid\":7,\"op\":\"open\",\"resolved\":\"/\\ud83d\\ude00\","
        "\"errno\":13,\"blocked_by\":\"shim\"}";
    CHECK(parse(newer, &r, scratch) == 0 && !strcmp(r.resolved, "/\xf0\x9f\x98\x80"));
}

static int count_cb(const struct vlog_record *r, void *ctx)
{
    (void)r;
    ++*(int *)ctx;
    return 0;
}

static void read_file(void)
{
    char dir[PATH_MAX];
    CHECK(check_tmpdir(dir, sizeof dir, "tf_vlog") != NULL);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    char line[VLOG_MAX];
    struct vlog_record r = sample();
    size_t n = vlog_format(line, sizeof line, &r);
    int fd = openat(dfd, "log", O_WRONLY | O_CREAT, 0644);
    char *huge = malloc(VLOG_LINE_MAX * 2);
    memset(huge, 'x', VLOG_LINE_MAX * 2);
    huge[VLOG_LINE_MAX * 2 - 1] = '\n';
    CHECK(write(fd, line, n) == (ssize_t)n);
    CHECK(write(fd, "garbage\n\n", 9) == 9);
    CHECK(write(fd, huge, VLOG_LINE_MAX * 2) == VLOG_LINE_MAX * 2);
    CHECK(write(fd, line, n) == (ssize_t)n);
    CHECK(write(fd, line, n / 2) == (ssize_t)(n / 2)); /* the writer died mid-line */
    close(fd);
    int seen = 0;
    struct vlog_stats st;
    tf_err err;
    CHECK(vlog_read(dfd, "log", 1 << 20, count_cb, &seen, &st, &err) == 0);
    CHECK(seen == 2 && st.records == 2 && st.malformed == 3 && !st.cut);
    CHECK(vlog_read(dfd, "log", n + 3, count_cb, &seen, &st, &err) == 0 && st.cut);
    CHECK(vlog_read(dfd, "missing", 1 << 20, count_cb, &seen, &st, &err) == 0 && st.records == 0);
    symlinkat("log", dfd, "link");
    CHECK(vlog_read(dfd, "link", 1 << 20, count_cb, &seen, &st, &err) < 0);
    free(huge);
    unlinkat(dfd, "log", 0);
    unlinkat(dfd, "link", 0);
    close(dfd);
    rmdir(dir);
}

static void printable(void)
{
    char out[64];
    vlog_printable(out, sizeof out, "a\x1b[31mb\xc2\x9b\xff\xe2\x82\xac");
    CHECK_STR(out, "a?[31mb??\xe2\x82\xac"); /* C1 CSI and a stray byte */
}

int main(void)
{
    roundtrip();
    where();
    caps_and_escapes();
    forged();
    read_file();
    printable();
    return check_done("test_vlog");
}
