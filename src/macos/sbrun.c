/* sbrun: core/osfence.h on macOS. The command runs under `sandbox-exec -p PROFILE` (seatbelt.c's
 * profile: writes denied but to the writable set, the run's temp dir and the system set), in a
 * process group of its own, killed at the end if anything of it is left. Inside another
 * Seatbelt sandbox (Codex, Claude Code) sandbox-exec cannot apply a second profile: that is
 * probed first, and the run falls back, loudly, to the plugin's guard. Refused writes are read
 * back from the unified log (`log show`), where macOS keeps them. */
#include "core/osfence.h"
#include "seatbelt.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOG_TOOL "/usr/bin/log"

/* posix_spawn's argv is char *const[]: the fixed words, writable. */
static char sandbox_exec[] = "/usr/bin/sandbox-exec", opt_p[] = "-p",
            allow_all[] = "(version 1)(allow default)", true_cmd[] = "/usr/bin/true";

const char osfence_name[] = "seatbelt";

const char osfence_about[] =
    "macOS: a Seatbelt profile applied with sandbox-exec: (allow default), (deny file-write*),\n"
    "then writes allowed beneath the writable set, the run's temp dir and the system set\n"
    "(/dev/null, /dev/fd, the ttys). Every process of the command is refused writes\n"
    "elsewhere: native code and child processes included. REPORTED: the writes a pytest with\n"
    "the testfence plugin refuses itself (its python backend joins this run), and the\n"
    "kernel's denials the unified log gives back after the run (log show; it may withhold\n"
    "or redact them). Inside another sandbox (Codex, Claude Code) sandbox-exec cannot apply\n"
    "a profile: run says so and falls back to the plugin's guard, which fences a pytest\n"
    "with the plugin only.\n";

const char osfence_note[] =
    "testfence: listed: the writes a pytest with the testfence plugin refused itself; the\n"
    "           unified log's Seatbelt denials are printed above; any other write Seatbelt\n"
    "           refused is not, so this list may be incomplete (fallen back to the plugin's\n"
    "           guard, other processes' writes were not refused at all).\n";

const bool osfence_falls_back = true;

/* Run ARGV (with ENVP; found on PATH) to its end in a new process group; its status as a
 * shell gives it (127 not found, 126 cannot be executed, said), its group in *PGID (0: none). */
static int spawn_wait(char *const *argv, char *const *envp, int *status, pid_t *pgid, tf_err *err)
{
    posix_spawnattr_t at;
    pid_t pid;
    int w = 0;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    int e = posix_spawnp(&pid, argv[0], NULL, &at, argv, envp);
    posix_spawnattr_destroy(&at);
    *pgid = 0;
    (void)err;
    if (e != 0) {
        fprintf(stderr, "testfence: %s: %s\n", argv[0],
                e == ENOENT ? "command not found" : strerror(e));
        *status = e == ENOENT ? 127 : 126;
        return 0;
    }
    *pgid = pid;
    while (waitpid(pid, &w, 0) < 0 && errno == EINTR)
        ;
    *status = WIFEXITED(w) ? WEXITSTATUS(w) : 128 + WTERMSIG(w);
    return 0;
}

/* Can sandbox-exec apply a profile here? Not inside another sandbox. */
int osfence_probe(char *layer, size_t len, tf_err *err)
{
    char *argv[] = {sandbox_exec, opt_p, allow_all, true_cmd, NULL};
    char *envp[] = {NULL};
    int status = -1;
    pid_t pg;
    if (access(sandbox_exec, X_OK) != 0)
        return tf_errnof(err, errno, "%s", sandbox_exec);
    if (spawn_wait(argv, envp, &status, &pg, err) < 0)
        return -1;
    if (status != 0)
        return tf_errf(err,
                       "sandbox-exec cannot apply a profile here (exit %d): this process is "
                       "inside another sandbox (Codex, Claude Code, an App Sandbox)",
                       status);
    snprintf(layer, len,
             "a Seatbelt profile (sandbox-exec: writes denied but to the writable set, the "
             "run's temp dir and the system set)");
    return 0;
}

/* sandbox-exec -p PROFILE CMD...: a new argv (free it, not its strings). */
static char **sandboxed(char *profile, char *const *cmd)
{
    size_t n = 0;
    while (cmd[n])
        n++;
    char **argv = calloc(n + 4, sizeof *argv);
    if (!argv)
        return NULL;
    argv[0] = sandbox_exec;
    argv[1] = opt_p;
    argv[2] = profile;
    memcpy(argv + 3, cmd, n * sizeof *cmd);
    return argv;
}

/* The unified log's Seatbelt file-write denials since START, printed on WARN; how many. */
static int log_denials(time_t start, FILE *warn)
{
    char since[32], cmd[512];
    strftime(since, sizeof since, "%Y-%m-%d %H:%M:%S", localtime(&start));
    snprintf(cmd, sizeof cmd,
             LOG_TOOL " show --style compact --start '%s' --predicate "
                      "'sender == \"Sandbox\" AND eventMessage CONTAINS \"deny(1) file-write\"' "
                      "2>/dev/null",
             since);
    FILE *p = popen(cmd, "r");
    if (!p) {
        fprintf(warn, "testfence: the unified log cannot be read (log show): %s\n",
                strerror(errno));
        return 0;
    }
    char line[2048];
    int n = 0;
    while (fgets(line, sizeof line, p))
        if (strstr(line, "deny(1) file-write")) {
            if (n++ == 0)
                fprintf(warn, "testfence: Seatbelt refused these writes (the unified log; "
                              "other sandboxed programs' denials of the same time included):\n");
            fprintf(warn, "    %s", line);
        }
    if (pclose(p) != 0 && n == 0)
        fprintf(warn, "testfence: the unified log gave no denials back (log show failed)\n");
    return n;
}

/* Anything of the command's process group still running: killed; whether there was. */
static int kill_group(pid_t pgid)
{
    if (pgid <= 0 || kill(-pgid, 0) != 0)
        return 0;
    kill(-pgid, SIGKILL);
    return 1;
}

/* Inside another sandbox: the command runs without Seatbelt, said loudly; a pytest with the
 * plugin still joins the run and fences itself (the python backend). */
static int fallback(const struct osfence_run *r, struct osfence_result *res, const char *why,
                    tf_err *err)
{
    pid_t pg;
    fprintf(r->warn,
            "testfence: WARNING: %s; falling back to the plugin's guard: only a pytest with "
            "the testfence plugin is fenced (in Python, WEAKER), other processes are NOT\n",
            why);
    int rc = spawn_wait(r->argv, r->envp, &res->status, &pg, err);
    if (rc == 0)
        res->left = kill_group(pg);
    return rc;
}

int osfence_launch(const struct osfence_run *r, struct osfence_result *res, tf_err *err)
{
    char layer[256], *profile = NULL;
    tf_err why = {0};
    *res = (struct osfence_result){0};
    if (osfence_probe(layer, sizeof layer, &why) < 0)
        return fallback(r, res, why.msg, err);
    struct sb_rule *rules = calloc(r->npaths + 1, sizeof *rules);
    for (size_t i = 0; rules && i < r->npaths; i++)
        rules[i] = (struct sb_rule){r->paths[i].path, r->paths[i].is_dir};
    int rc = rules ? sb_profile(rules, r->npaths, &profile, err) : tf_errf(err, "out of memory");
    char **argv = rc == 0 ? sandboxed(profile, r->argv) : NULL;
    pid_t pg = 0;
    time_t start = time(NULL);
    if (rc == 0 && !argv)
        rc = tf_errf(err, "out of memory");
    if (rc == 0)
        rc = spawn_wait(argv, r->envp, &res->status, &pg, err);
    if (rc == 0) {
        res->left = kill_group(pg);
        res->seen = log_denials(start, r->warn);
    }
    free(argv);
    free(profile);
    free(rules);
    return rc;
}
