/* testfence: dispatch to one subcommand. */
#include "cmds.h"

#include <stdio.h>
#include <string.h>

static const struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"run", cmd_run, "run COMMAND so it cannot write outside the project's tests/"},
    {"doctor", cmd_doctor, "what this machine can enforce and which root/writable set applies"},
    {"explain", cmd_explain, "would a write to PATH be allowed, and by which rule"},
    {"init", cmd_init, "write a starter [tool.testfence] / testfence.toml"},
    {"clean", cmd_clean, "remove run workspaces beyond the retention count"},
    {"audit", cmd_audit, "scan test sources for writes that would escape tests/"},
    {"suggest", cmd_suggest, "the smallest fix for each write a run blocked (a config diff)"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: testfence COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\noptions:\n"
               "  -h, --help      print this help\n"
               "  -V, --version   print the version\n"
               "\n'testfence COMMAND --help' describes each command; 'man testfence' the whole.\n"
               "\n"
               "exit status: 125 for a usage error or testfence's own error, in every\n"
               "command; run: 126 cannot execute, 127 not found, 120 writes were blocked,\n"
               "otherwise the command's own status; doctor, explain and audit: 1 when the\n"
               "answer is no (audit: findings; see each command's --help).\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return TF_EXIT_OWN_ERROR;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
        printf("testfence %s\n", TESTFENCE_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(name, commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "testfence: unknown command '%s'; see 'testfence --help'\n", name);
    return TF_EXIT_OWN_ERROR;
}
