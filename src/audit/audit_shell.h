/* audit_shell: shell commands as the audit reads them, from a Python argv list, a command
 * string or a script a test runs: git config's scope, rm -r / find -delete operands, output
 * redirections, with the variables the text assigns and guards. Language-neutral. */
#ifndef TESTFENCE_AUDIT_SHELL_H
#define TESTFENCE_AUDIT_SHELL_H

#include <stdbool.h>
#include <stddef.h>

typedef enum tf_sh_kind {
    TF_SH_GIT_GLOBAL, /* git config --global that writes: the user's ~/.gitconfig */
    TF_SH_GIT_SYSTEM, /* git config --system that writes: /etc/gitconfig */
    TF_SH_GIT_REPO,   /* git config [--local|--worktree] that writes: the cwd's repository */
    TF_SH_GIT_FILE,   /* git config --file PATH that writes PATH */
    TF_SH_DELETE,     /* rm -r OPERAND, find OPERAND ... -delete */
    TF_SH_REDIRECT,   /* > PATH, >> PATH, &> PATH */
    TF_SH_SCRIPT,     /* bash PATH, ./PATH.sh: a script it runs (path: PATH) */
} tf_sh_kind;

/* Variables a command's environment redirects (HOME=x git ..., export HOME=x, env=). */
enum {
    TF_SH_ENV_HOME = 1,   /* HOME (or USERPROFILE) */
    TF_SH_ENV_XDG = 2,    /* XDG_CONFIG_HOME */
    TF_SH_ENV_GITCFG = 4, /* GIT_CONFIG_GLOBAL, GIT_CONFIG (the whole config) */
    TF_SH_ENV_GITSYS = 8, /* GIT_CONFIG_SYSTEM, GIT_CONFIG */
};

typedef struct tf_sh_cmd {
    tf_sh_kind kind;
    int line;      /* 1-based line of the command in the text */
    unsigned env;  /* TF_SH_ENV_* in force for the command */
    bool after_cd; /* a cd came before it: relative paths are not placed */
    /* GIT_FILE: the path; GIT_REPO: the -C directory ("" none); DELETE, REDIRECT: the path with
     * the text's own variables substituted, "~" for HOME and '*' for what is not known. */
    char path[256];
    bool wild;          /* path holds '*' for parts not known */
    char empty_var[48]; /* DELETE: a variable at the start that may be empty ("" none) */
    char if_empty[256]; /* DELETE: the path when that variable is empty */
    char shown[96];     /* the command for a message: "git config --global", "rm -rf $D/x" */
} tf_sh_cmd;

/* Classify one command given as words (NULL: a word that is not known). True when it is a
 * command that matters, filling OUT (line 0, env ENV). */
bool tf_sh_classify(const char *const *argv, int argc, unsigned env, tf_sh_cmd *out);

typedef void (*tf_sh_fn)(void *ctx, const tf_sh_cmd *c);

/* Every command of shell TEXT that matters, in order, passed to FN. */
void tf_sh_scan(const char *text, size_t len, tf_sh_fn fn, void *ctx);

#endif
