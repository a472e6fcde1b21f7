/* Unit tests for src/linux/spawn.c's gate: the command does not exec before before_exec
 * has returned 0 (however long it takes), and never runs when it fails. */
#include "check.h"
#include "core/exitcode.h"
#include "linux/spawn.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static char dir[4096], made[4200], ran[4200];

/* Slow on purpose: the child is set up long before this is done. */
static int make_late(void *ctx, tf_err *err)
{
    (void)err;
    struct timespec t = {0, 200 * 1000 * 1000};
    nanosleep(&t, NULL);
    FILE *f = fopen(ctx, "w");
    if (f)
        fclose(f);
    return 0;
}

static int fail_late(void *ctx, tf_err *err)
{
    make_late(ctx, err);
    return tf_errf(err, "the preparation failed");
}

/* A signal (CTX) sent to ourselves while testfence prepares, as Ctrl-C would be. */
static int interrupted_late(void *ctx, tf_err *err)
{
    kill(getpid(), *(int *)ctx);
    return make_late(made, err);
}

/* sh -c: exit 0 when the hook's file is there at exec, else 3; touch RAN either way. */
static int run_ctx(int (*hook)(void *, tf_err *), void *ctx, int *status, tf_err *err)
{
    char script[9000];
    snprintf(script, sizeof script, "touch '%s'; test -e '%s' || exit 3", ran, made);
    char sh[] = "sh", c[] = "-c";
    char *argv[] = {sh, c, script, NULL};
    struct spawn_opts o = {.argv = argv,
                           .envp = environ,
                           .ruleset_fd = -1,
                           .record_fd = -1,
                           .record_ctx = ctx,
                           .before_exec = hook};
    return spawn_run(&o, status, err);
}

static int run_with(int (*hook)(void *, tf_err *), int *status, tf_err *err)
{
    return run_ctx(hook, made, status, err);
}

static void test_waits_for_the_hook(void)
{
    int status = -1;
    tf_err err = {0};
    CHECK(run_with(make_late, &status, &err) == 0);
    CHECK(status == 0); /* 3: the command ran before the hook had made the file */
    CHECK(access(ran, F_OK) == 0);
}

static void test_never_runs_when_the_hook_fails(void)
{
    int status = -1;
    tf_err err = {0};
    unlink(made);
    unlink(ran);
    CHECK(run_with(fail_late, &status, &err) == -1);
    CHECK(status == TF_EXIT_OWN_ERROR);
    CHECK_STR(err.msg, "the preparation failed");
    CHECK(access(ran, F_OK) != 0);
}

static int notify_fd;

/* Says it has started, then never returns: testfence killed while it prepares. */
static int hang(void *ctx, tf_err *err)
{
    (void)ctx;
    (void)err;
    if (write(notify_fd, "r", 1) != 1)
        _exit(1);
    for (;;)
        pause();
}

/* testfence killed during its preparation: the command's process, waiting at the gate, sees
 * it go and exits unrun, not hanging on with testfence's output open (a CI step piping it
 * would never end). Red-team finding: the child held the gate's other end itself. */
static void test_parent_killed_at_the_gate(void)
{
    int out[2], ready[2];
    char c;
    CHECK(pipe(out) == 0 && pipe(ready) == 0);
    unlink(ran);
    pid_t tf = fork();
    if (tf == 0) {
        int status;
        tf_err err;
        close(out[0]);
        close(ready[0]);
        notify_fd = ready[1];
        run_with(hang, &status, &err); /* out[1] goes with the child: it holds it open */
        _exit(0);
    }
    close(out[1]);
    close(ready[1]);
    CHECK(read(ready[0], &c, 1) == 1);
    kill(tf, SIGKILL);
    waitpid(tf, NULL, 0);
    alarm(30); /* the bug hangs here forever: the alarm ends the test instead */
    CHECK(read(out[0], &c, 1) == 0); /* EOF: every holder of out[1] is gone */
    alarm(0);
    CHECK(access(ran, F_OK) != 0);
    close(out[0]);
    close(ready[0]);
}

/* A signal that stops the run, come while testfence prepared: the command never starts,
 * testfence lives to say so and exits 128 + the signal; one that does not (SIGCHLD): it runs. */
static void test_stopped_while_preparing(void)
{
    int status = -1, sig = SIGTERM;
    tf_err err = {0};
    unlink(made);
    unlink(ran);
    CHECK(run_ctx(interrupted_late, &sig, &status, &err) == -1);
    CHECK(status == 128 + SIGTERM);
    CHECK(strstr(err.msg, "before the command started") != NULL);
    CHECK(access(ran, F_OK) != 0);
    sig = SIGCHLD;
    CHECK(run_ctx(interrupted_late, &sig, &status, &err) == 0);
    CHECK(status == 0);
    CHECK(access(ran, F_OK) == 0);
}

int main(void)
{
    CHECK(check_tmpdir(dir, sizeof dir, "tf-spawn") != NULL);
    snprintf(made, sizeof made, "%s/made", dir);
    snprintf(ran, sizeof ran, "%s/ran", dir);
    test_waits_for_the_hook();
    test_never_runs_when_the_hook_fails();
    test_parent_killed_at_the_gate();
    test_stopped_while_preparing();
    unlink(made);
    unlink(ran);
    rmdir(dir);
    return check_done("test_spawn");
}
