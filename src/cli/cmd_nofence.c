/* The builds off Linux (testfence.exe on Windows, macOS): doctor's project check, which
 * cmd_osrun.c's doctor prints, and for a build without the OS's own fence, run refusing with
 * the OS session.h's message and doctor checking only the root and configuration (explain and
 * clean are cmd_explain.c and cmd_clean.c there too, over src/windows' or src/macos' resolver
 * and directory calls); docs/platforms.md says what each does there. */
#include "cmds.h"
#include "opts.h"

#include "core/config.h"
#include "core/project.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The root and configuration run would use, as the Linux doctor prints them; 0, or -1 with
 * the reason in ERR (no root, a config error naming file, line, column and key). */
int doctor_project(const struct opts *o, tf_err *err)
{
    char root[PATH_MAX];
    struct config cfg;
    if (project_find_root(o->req.root, root, sizeof root, err) < 0)
        return -1;
    int rc = config_load(&cfg, root, o->req.config, err);
    if (rc == 0) {
        printf("root:      %s\nconfig:    %s\nwritable:\n", root, cfg.source);
        for (size_t i = 0; i < cfg.writable.n; i++)
            printf("  %s/%s\n", root, cfg.writable.v[i]);
    }
    config_free(&cfg);
    return rc;
}

/* A build with the OS's own fence (TESTFENCE_OSFENCE: Windows and macOS, every build off
 * Linux now) has cmd_osrun.c's run and doctor instead: this is for a build without one. */
#ifndef TESTFENCE_OSFENCE
static const struct opts_command run_command = {
    .name = "run",
    .cmd = CMD_RUN,
    .about = "usage: testfence run [OPTIONS] [--] COMMAND [ARG...]\n"
             "\n"
             "Not available on Windows or macOS yet: this build has no fence to run\n"
             "COMMAND in. Use the pytest plugin (pytest -p testfence), which guards the test\n"
             "process itself; docs/platforms.md says what it covers.\n"
             "\n",
    .after =
        "exit status: 125 always in this build (run is not available), as for a usage error.\n",
    .operands = OPERANDS_SOME,
    .missing = "no command given; usage: testfence run [OPTIONS] [--] COMMAND [ARG...]",
};

int cmd_run(int argc, char **argv)
{
    struct opts o;
    tf_err err = {0};
    int r = opts_parse(argc, argv, &run_command, &o, &err);
    opts_free(&o);
    if (r == 1)
        return 0; /* --help */
    fprintf(stderr, "testfence: run: %s\n", session_unavailable);
    return TF_EXIT_OWN_ERROR;
}

static const struct opts_command doctor_command = {
    .name = "doctor",
    .cmd = CMD_DOCTOR,
    .about = "usage: testfence doctor [OPTIONS]\n"
             "\n"
             "On Windows and macOS: say that 'testfence run' has no fence here yet, and check\n"
             "what would apply: the project root and its configuration (--config,\n"
             "testfence.toml, [tool.testfence] in pyproject.toml, or the defaults), every key\n"
             "and type in it, and the writable directories it names.\n"
             "\n",
    .after = "exit status: 1 always in this build ('testfence run' would refuse: not available\n"
             "here yet), with the configuration's errors on stdout when it has any; 125 usage\n"
             "error.\n",
    .operands = OPERANDS_NONE,
    .missing = NULL,
};

int cmd_doctor(int argc, char **argv)
{
    struct opts o;
    tf_err err = {0};
    int r = opts_parse(argc, argv, &doctor_command, &o, &err);
    if (r != 0) {
        if (r < 0)
            fprintf(stderr, "testfence: %s\n", err.msg);
        opts_free(&o);
        return r > 0 ? 0 : TF_EXIT_OWN_ERROR;
    }
    printf("system:    %s (testfence %s)\n", session_os, TESTFENCE_VERSION);
    printf("fence:     none: %s\n", session_unavailable);
    if (doctor_project(&o, &err) < 0)
        printf("project:   none usable from here: %s\n", err.msg);
    printf("verdict:   testfence run would refuse here: %s\n", session_unavailable);
    opts_free(&o);
    return 1;
}
#endif
