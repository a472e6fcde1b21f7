/* Unit tests for src/linux/mountns.c and reaper.c: the mount points a policy gives, the
 * read-only view built for real in a child (metadata outside refused with EROFS, inside
 * allowed, the cwd and an inherited read-only fd re-entered), and the sweep of a leftover. */
#include "check.h"
#include "linux/mountns.h"
#include "linux/reaper.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[4096], tests[4200], arts[4300], out[4200], cfg[4200], in[4300];

static void make_project(void)
{
    check_tmpdir(dir, sizeof dir, "tf-mountns");
    snprintf(tests, sizeof tests, "%s/tests", dir);
    snprintf(arts, sizeof arts, "%s/artifacts", tests);
    snprintf(out, sizeof out, "%s/out.xml", dir);
    snprintf(cfg, sizeof cfg, "%s/config.toml", dir);
    snprintf(in, sizeof in, "%s/in.txt", tests);
    mkdir(tests, 0755);
    mkdir(arts, 0755);
    close(open(out, O_WRONLY | O_CREAT, 0644));
    close(open(cfg, O_WRONLY | O_CREAT, 0644));
    close(open(in, O_WRONLY | O_CREAT, 0644));
}

static void test_plan(void)
{
    struct policy p;
    struct mountns m;
    tf_err err;
    CHECK(policy_init(&p, dir, &err) == 0);
    CHECK(policy_add_resolved(&p, tests, "tests", POLICY_PROJECT, true, &err) == 0);
    CHECK(policy_add_resolved(&p, arts, "tests/artifacts", POLICY_PROJECT, true, &err) == 0);
    CHECK(policy_add_resolved(&p, tests, "tests/", POLICY_ALLOW, true, &err) == 0);
    CHECK(policy_add_resolved(&p, "/dev/null", "/dev/null", POLICY_SYSTEM, false, &err) == 0);
    CHECK(policy_add_resolved(&p, out, "out.xml", POLICY_OUTPUT, false, &err) == 0);
    CHECK(mountns_plan(&m, &p, &err) == 0);
    /* tests/ once, not its artifacts nor its second entry; the output file; no device. */
    CHECK(m.n == 2);
    if (m.n == 2) {
        CHECK_STR(m.targets[0].path, tests);
        CHECK_STR(m.targets[1].path, out);
        CHECK(!m.targets[0].devices && !m.targets[1].devices);
    }
    CHECK(m.userns == (geteuid() != 0));
    mountns_free(&m);
    policy_free(&p);
}

/* In the new namespaces: what the kernel answers. A bit per failed expectation. */
static int in_view(const struct mountns *m)
{
    int fds[1] = {0}, bad = 0;
    const char *step = "";
    bool fatal;
    if (mountns_enter(m, fds, 1, &step, &fatal) != 0)
        return 64;
    if (!(chmod(cfg, 0600) < 0 && errno == EROFS))
        bad |= 1; /* outside: read-only */
    if (chmod(in, 0600) < 0)
        bad |= 2; /* inside: writable */
    int fd = open(out, O_WRONLY | O_TRUNC);
    if (fd < 0)
        bad |= 4; /* a declared output file */
    close(fd);
    if (!(fchmod(0, 0600) < 0 && errno == EROFS))
        bad |= 8; /* stdin, opened on config.toml before: reopened read-only here */
    fd = open("created-in-cwd", O_WRONLY | O_CREAT, 0644); /* cwd was tests/: re-entered */
    if (fd < 0)
        bad |= 16;
    close(fd);
    char self[32] = "";
    if (readlink("/proc/self", self, sizeof self - 1) < 0 || strcmp(self, "1") || getpid() != 1)
        bad |= 32; /* PID 1 of a namespace with its own /proc */
    return bad;
}

static void test_enter(void)
{
    char why[600];
    if (mountns_probe(why, sizeof why) < 0) {
        /* Nested in a testfence run, mounts are Landlock's to refuse: said, not a failure.
         * Anywhere else this machine (Debian 12, user namespaces on) must have the layer. */
        printf("test_mountns: the view is not tested here: %s\n", why);
        CHECK(getenv("TESTFENCE_RUN_ID") != NULL);
        return;
    }
    struct policy p;
    struct mountns m;
    tf_err err;
    policy_init(&p, dir, &err);
    policy_add_resolved(&p, tests, "tests", POLICY_PROJECT, true, &err);
    policy_add_resolved(&p, out, "out.xml", POLICY_OUTPUT, false, &err);
    int keep = dup(0), cwd = open(".", O_PATH | O_DIRECTORY);
    dup2(open(cfg, O_RDONLY), 0);
    CHECK(chdir(tests) == 0);
    CHECK(mountns_plan(&m, &p, &err) == 0);
    long pid = syscall(SYS_clone, mountns_clone_flags(&m) | SIGCHLD, NULL, NULL, NULL, NULL);
    if (pid == 0)
        _exit(in_view(&m));
    int st = -1;
    CHECK(pid > 0 && waitpid((pid_t)pid, &st, 0) == pid);
    CHECK(WIFEXITED(st));
    if (WEXITSTATUS(st))
        fprintf(stderr, "test_mountns: in the view, failed expectations 0x%x\n", WEXITSTATUS(st));
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    struct stat s;
    CHECK(stat(cfg, &s) == 0 && (s.st_mode & 0777) == 0644); /* unchanged outside */
    dup2(keep, 0);
    fchdir(cwd);
    mountns_free(&m);
    policy_free(&p);
}

static int seen;
static char seen_test[64], seen_cmd[64];

static void on_left(void *ctx, const struct leftover *l)
{
    (void)ctx;
    seen++;
    snprintf(seen_test, sizeof seen_test, "%s", l->test);
    snprintf(seen_cmd, sizeof seen_cmd, "%s", l->cmdline);
}

/* As a subreaper: a daemon (double fork) is found, described and killed. */
static void test_sweep(void)
{
    int p[2];
    CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
    CHECK(pipe(p) == 0);
    pid_t a = fork();
    if (a == 0) {
        pid_t b = fork();
        if (b == 0) {
            static char a0[] = "sleep", a1[] = "30", e0[] = "TF_TEST=t.py::test_d (call)";
            char *argv[] = {a0, a1, NULL}, *envp[] = {e0, NULL};
            close(p[0]);
            execve("/bin/sleep", argv, envp);
            _exit(127);
        }
        if (write(p[1], &b, sizeof b) != (ssize_t)sizeof b)
            _exit(1);
        _exit(0);
    }
    pid_t b = 0;
    close(p[1]);
    CHECK(read(p[0], &b, sizeof b) == (ssize_t)sizeof b);
    waitpid(a, NULL, 0);
    /* Until it has exec'd sleep and its arguments are in place: the kernel renames a
     * process (comm) before it sets up the new program's arguments and environment, so a
     * sweep in between finds no command line. Waited for, not timed. */
    for (int i = 0; i < 200; i++) {
        char buf[64] = "";
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/cmdline", (int)b);
        int fd = open(path, O_RDONLY);
        if (fd >= 0 && read(fd, buf, sizeof buf - 1) > 0 && !strcmp(buf, "sleep")) {
            close(fd);
            break;
        }
        if (fd >= 0)
            close(fd);
        usleep(10000);
    }
    CHECK(reaper_sweep(0, "TF_TEST", on_left, NULL) == 1);
    CHECK(seen == 1);
    CHECK_STR(seen_test, "t.py::test_d (call)");
    CHECK_STR(seen_cmd, "sleep 30");
    CHECK(kill(b, 0) < 0 && errno == ESRCH);
    prctl(PR_SET_CHILD_SUBREAPER, 0);
}

int main(void)
{
    make_project();
    test_plan();
    test_enter();
    test_sweep();
    return check_done("test_mountns");
}
