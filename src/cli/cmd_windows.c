/* The commands of the Windows build (testfence.exe) whose Linux versions are built on the
 * Linux session (cmd_run.c, cmd_doctor.c, cmd_explain.c, cmd_clean.c): run refuses with
 * windows/session.h's message; docs/platforms.md says what each does there. */
#include "cmds.h"
#include "opts.h"

#include <stdio.h>
#include <string.h>

static const struct opts_command run_command = {
    .name = "run",
    .cmd = CMD_RUN,
    .about = "usage: testfence run [OPTIONS] [--] COMMAND [ARG...]\n"
             "\n"
             "Not available on Windows yet: this build has no fence to run COMMAND in. Use the\n"
             "pytest plugin (pytest -p testfence), which guards the test process itself;\n"
             "docs/platforms.md says what it covers.\n"
             "\n",
    .after = "exit status: 125 always on Windows (run is not available), as for a usage error.\n",
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

int cmd_doctor(int argc, char **argv)
{
    (void)argc, (void)argv;
    return TF_EXIT_OWN_ERROR;
}

int cmd_explain(int argc, char **argv)
{
    (void)argc, (void)argv;
    return TF_EXIT_OWN_ERROR;
}

int cmd_clean(int argc, char **argv)
{
    (void)argc, (void)argv;
    return TF_EXIT_OWN_ERROR;
}
