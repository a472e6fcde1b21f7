#include "audit_shell.h"

#include <stdio.h>
#include <string.h>

#define SH_MAX_WORDS 64
#define SH_WORD 256
#define SH_MAX_VARS 64
#define SH_MAX_REDIRS 8

/* S into OUT, cut to fit. */
static void copy(char *out, size_t len, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    n = n < len - 1 ? n : len - 1;
    memcpy(out, s ? s : "", n);
    out[n] = '\0';
}

static const char *base_name(const char *w)
{
    const char *slash = strrchr(w, '/');
    return slash ? slash + 1 : w;
}

/* ---- one command, as words ---- */

/* Options of git itself that take the next word as their value. */
static bool git_option_has_value(const char *w)
{
    static const char *const opts[] = {"-C",          "-c",           "--git-dir", "--work-tree",
                                       "--namespace", "--config-env", NULL};
    for (int i = 0; opts[i]; i++)
        if (!strcmp(w, opts[i]))
            return true;
    return false;
}

static bool in_list(const char *w, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(w, list[i]))
            return true;
    return false;
}

/* git config's own words after "config": its scope, and whether it writes. */
static bool git_config(const char *const *argv, int argc, int i, const char *dir_c, unsigned env,
                       tf_sh_cmd *out)
{
    static const char *const writes[] = {
        "--add",  "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section",
        "--edit", "-e",      NULL};
    static const char *const reads[] = {"--get",  "--get-all", "--get-regexp", "--get-urlmatch",
                                        "--list", "-l",        "--get-color",  "--get-colorbool",
                                        "--blob", NULL};
    static const char *const valued[] = {"--type", "--default", "--comment", "--value", NULL};
    static const char *const sub_w[] = {"set",  "unset", "rename-section", "remove-section",
                                        "edit", NULL};
    static const char *const sub_r[] = {"get", "list", NULL};
    enum { S_REPO, S_GLOBAL, S_SYSTEM, S_FILE } scope = S_REPO;
    const char *file = NULL;
    int write = -1, positional = 0;
    for (; i < argc; i++) {
        const char *w = argv[i] ? argv[i] : "";
        if (!strcmp(w, "--global"))
            scope = S_GLOBAL;
        else if (!strcmp(w, "--system"))
            scope = S_SYSTEM;
        else if ((!strcmp(w, "--file") || !strcmp(w, "-f")) && i + 1 < argc)
            scope = S_FILE, file = argv[++i];
        else if (!strncmp(w, "--file=", 7))
            scope = S_FILE, file = w + 7;
        else if (in_list(w, writes))
            write = 1;
        else if (in_list(w, reads))
            write = write == 1 ? 1 : 0;
        else if (in_list(w, valued))
            i++;
        else if (w[0] == '-')
            continue; /* --local, --worktree, --bool, --type=x, ... */
        else if (positional++ == 0 && write < 0 && in_list(w, sub_w))
            write = 1, positional--;
        else if (positional == 1 && write < 0 && in_list(w, sub_r))
            write = 0, positional--;
    }
    if (write == 0 || (write < 0 && positional < 2))
        return false;
    out->kind = scope == S_GLOBAL   ? TF_SH_GIT_GLOBAL
                : scope == S_SYSTEM ? TF_SH_GIT_SYSTEM
                : scope == S_FILE   ? TF_SH_GIT_FILE
                                    : TF_SH_GIT_REPO;
    if (scope == S_FILE && !file)
        return false; /* a file that is not known: nothing to place */
    copy(out->path, sizeof out->path, scope == S_FILE ? file : dir_c);
    snprintf(out->shown, sizeof out->shown, "git config%s",
             scope == S_GLOBAL   ? " --global"
             : scope == S_SYSTEM ? " --system"
             : scope == S_FILE   ? " --file"
                                 : "");
    out->env = env;
    return true;
}

static bool classify_git(const char *const *argv, int argc, unsigned env, tf_sh_cmd *out)
{
    const char *dir_c = "";
    int i = 1;
    while (i < argc && argv[i] && argv[i][0] == '-') {
        if (!strcmp(argv[i], "-C") && i + 1 < argc)
            dir_c = argv[i + 1] ? argv[i + 1] : "*";
        i += git_option_has_value(argv[i]) ? 2 : 1;
    }
    if (i >= argc || !argv[i] || strcmp(argv[i], "config"))
        return false;
    return git_config(argv, argc, i + 1, dir_c, env, out);
}

/* Is W a short or long option of rm asking for recursion (-r, -R, -rf, -fr, --recursive)? */
static bool rm_recursive(const char *w)
{
    if (!strcmp(w, "--recursive"))
        return true;
    return w[0] == '-' && w[1] != '-' && (strchr(w, 'r') || strchr(w, 'R'));
}

/* rm -r: the operands. Returns the index of the first one (0: not recursive). */
static int rm_operands(const char *const *argv, int argc, char *flags, size_t flen)
{
    bool recursive = false, opts = true;
    int first = 0;
    flags[0] = '\0';
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i] ? argv[i] : "*";
        if (opts && !strcmp(w, "--")) {
            opts = false;
        } else if (opts && w[0] == '-' && w[1]) {
            recursive |= rm_recursive(w);
            size_t have = strlen(flags);
            if (have + strlen(w) + 2 < flen)
                snprintf(flags + have, flen - have, " %s", w);
        } else if (!first) {
            first = i;
        }
    }
    return recursive ? first : 0;
}

/* find PATH... -delete (or -exec rm): the start paths end at the first expression word. */
static bool find_deletes(const char *const *argv, int argc)
{
    for (int i = 1; i < argc; i++)
        if (argv[i] &&
            (!strcmp(argv[i], "-delete") || (!strcmp(argv[i], "-exec") && i + 1 < argc &&
                                             argv[i + 1] && !strcmp(base_name(argv[i + 1]), "rm"))))
            return true;
    return false;
}

bool tf_sh_classify(const char *const *argv, int argc, unsigned env, tf_sh_cmd *out)
{
    memset(out, 0, sizeof *out);
    out->env = env;
    if (argc < 1 || !argv[0])
        return false;
    static const char *const shells[] = {"sh", "bash", "dash", "zsh", "ksh", NULL};
    const char *cmd = base_name(argv[0]);
    if (!strcmp(cmd, "git"))
        return classify_git(argv, argc, env, out);
    size_t n = strlen(cmd);
    bool by_shell = in_list(cmd, shells) && argc > 1 && argv[1] && argv[1][0] != '-';
    if (by_shell || (n > 3 && !strcmp(cmd + n - 3, ".sh")) ||
        (n > 5 && !strcmp(cmd + n - 5, ".bash")) || !strncmp(argv[0], "./", 2)) {
        out->kind = TF_SH_SCRIPT;
        copy(out->path, sizeof out->path, by_shell ? argv[1] : argv[0]);
        copy(out->shown, sizeof out->shown, by_shell ? "sh" : "");
        return true;
    }
    char flags[32];
    int first = !strcmp(cmd, "rm") ? rm_operands(argv, argc, flags, sizeof flags) : 0;
    if (!strcmp(cmd, "find") && find_deletes(argv, argc) && argc > 1 && argv[1] &&
        argv[1][0] != '-')
        first = 1, copy(flags, sizeof flags, " ... -delete");
    if (!first)
        return false;
    out->kind = TF_SH_DELETE; /* the first operand; a scan reports each (tf_sh_scan) */
    copy(out->path, sizeof out->path, argv[first] ? argv[first] : "*");
    out->wild = !argv[first];
    /* Only shown: a long command is cut (the return value looked at, so the compiler knows). */
    int shown = !strcmp(cmd, "find")
                    ? snprintf(out->shown, sizeof out->shown, "find %.60s%s", out->path, flags)
                    : snprintf(out->shown, sizeof out->shown, "rm%s %.60s", flags, out->path);
    return shown >= 0;
}

/* ---- shell text ---- */

typedef struct sh_var {
    char name[48];
    char value[SH_WORD];
} sh_var;

typedef struct sh {
    const char *text;
    size_t len, i;
    int line;
    sh_var vars[SH_MAX_VARS];
    int n_vars;
    unsigned env; /* exported redirections in force */
    bool after_cd, nounset;
    const char *heredoc; /* pending here-document delimiter (a word of the command) */
    char heredoc_buf[64];
    tf_sh_fn fn;
    void *ctx;
} sh;

typedef struct sh_cmd {
    char words[SH_MAX_WORDS][SH_WORD];
    int n;
    char redirs[SH_MAX_REDIRS][SH_WORD];
    int n_redirs;
    int line;
} sh_cmd;

static bool is_name_char(char c, bool first)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (!first && c >= '0' && c <= '9');
}

/* Does TEXT[0..LEN) contain NEEDLE? */
static bool contains(const char *text, size_t len, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; k && i + k <= len; i++)
        if (text[i] == needle[0] && !memcmp(text + i, needle, k))
            return true;
    return false;
}

/* Is variable NAME checked before use somewhere in the text (${N:?}, [ -z "$N" ], ...)? */
static bool guarded(const sh *S, const char *name)
{
    static const char *const before[] = {"${",     "${",   "-z \"$",  "-z $", "-z \"${",
                                         "-n \"$", "-n $", "-n \"${", "-z ${"};
    static const char *const after[] = {":?", "?", "\"", "", "}\"", "\"", "", "}\"", "}"};
    char pat[96];
    for (size_t i = 0; i < sizeof before / sizeof *before; i++) {
        snprintf(pat, sizeof pat, "%s%s%s", before[i], name, after[i]);
        if (contains(S->text, S->len, pat))
            return true;
    }
    return false;
}

static const sh_var *lookup(const sh *S, const char *name)
{
    for (int i = S->n_vars; i-- > 0;)
        if (!strcmp(S->vars[i].name, name))
            return &S->vars[i];
    return NULL;
}

typedef struct expansion {
    char text[SH_WORD], if_empty[SH_WORD];
    size_t n, m;
    bool wild;
    char empty_var[48];
} expansion;

static void put(expansion *e, const char *s, size_t k, bool both)
{
    if (e->n + k < sizeof e->text)
        memcpy(e->text + e->n, s, k), e->n += k;
    if (both && e->m + k < sizeof e->if_empty)
        memcpy(e->if_empty + e->m, s, k), e->m += k;
}

static void expand_into(const sh *S, const char *w, expansion *e, int depth);

/* One parameter expansion: NAME with its operator ("" plain, ":?", ":-word", ...). */
static void expand_var(const sh *S, const char *name, const char *op, expansion *e, int depth)
{
    bool at_start = e->n == 0;
    const sh_var *v = lookup(S, name);
    if (op[0] == '?' || (op[0] == ':' && op[1] == '?') || guarded(S, name)) {
        put(e, "*", 1, true), e->wild = true; /* checked: never empty here */
    } else if (v && v->value[0] && depth < 4) {
        expand_into(S, v->value, e, depth + 1);
    } else if (!v && (op[0] == '-' || op[0] == '=' || (op[0] == ':' && strchr("-=", op[1]))) &&
               op[1 + (op[0] == ':')]) {
        expand_into(S, op + 1 + (op[0] == ':'), e, depth + 1); /* the default */
    } else if (!strcmp(name, "HOME") && at_start) {
        put(e, "~", 1, true);
    } else if (!strcmp(name, "PWD") && at_start) {
        put(e, ".", 1, true);
    } else if (v || (S->nounset && !v) || !strcmp(name, "TMPDIR")) {
        put(e, "*", 1, true), e->wild = true; /* known to be set, or a temp dir */
    } else {
        put(e, "*", 1, false), e->wild = true; /* from the environment: may be empty */
        if (at_start && !e->empty_var[0])
            copy(e->empty_var, sizeof e->empty_var, name);
        else if (e->m < sizeof e->if_empty - 1)
            e->if_empty[e->m++] = '*';
    }
}

/* Skip a $(...) or `...` starting at W[i]; returns the index after it. */
static size_t skip_subst(const char *w, size_t i)
{
    if (w[i] == '`') {
        const char *end = strchr(w + i + 1, '`');
        return end ? (size_t)(end - w) + 1 : strlen(w);
    }
    int depth = 0;
    for (; w[i]; i++) {
        depth += w[i] == '(';
        if (w[i] == ')' && --depth == 0)
            return i + 1;
    }
    return i;
}

static void expand_into(const sh *S, const char *w, expansion *e, int depth)
{
    for (size_t i = 0; w[i];) {
        if (w[i] == '`' || (w[i] == '$' && w[i + 1] == '(')) {
            i = skip_subst(w, i + (w[i] == '$'));
            put(e, "*", 1, true), e->wild = true;
        } else if (w[i] == '$' && w[i + 1] == '{') {
            char name[48] = "", op[SH_WORD] = "";
            size_t j = i + 2, k = 0;
            while (is_name_char(w[j], k == 0) && k < sizeof name - 1)
                name[k++] = w[j++];
            size_t end = j;
            while (w[end] && w[end] != '}')
                end++;
            snprintf(op, sizeof op, "%.*s", (int)(end - j), w + j);
            if (k)
                expand_var(S, name, op, e, depth);
            else
                put(e, "*", 1, true), e->wild = true;
            i = w[end] ? end + 1 : end;
        } else if (w[i] == '$' && is_name_char(w[i + 1], true)) {
            char name[48];
            size_t j = i + 1, k = 0;
            while (is_name_char(w[j], k == 0) && k < sizeof name - 1)
                name[k++] = w[j++];
            name[k] = '\0';
            expand_var(S, name, "", e, depth);
            i = j;
        } else if (w[i] == '$' && w[i + 1]) { /* $1, $@, $$: set by the caller */
            put(e, "*", 1, true), e->wild = true;
            i += 2;
        } else {
            put(e, w + i, 1, true);
            i++;
        }
    }
}

static void expand(const sh *S, const char *w, tf_sh_cmd *c)
{
    expansion e = {.n = 0};
    expand_into(S, w, &e, 0);
    e.text[e.n] = '\0';
    e.if_empty[e.m] = '\0';
    copy(c->path, sizeof c->path, e.text);
    c->wild = e.wild;
    copy(c->empty_var, sizeof c->empty_var, e.empty_var);
    copy(c->if_empty, sizeof c->if_empty, e.empty_var[0] ? e.if_empty : "");
}

/* ---- words ---- */

static char peek(const sh *S, size_t k)
{
    return S->i + k < S->len ? S->text[S->i + k] : '\0';
}

static void word_put(char *w, size_t *n, char c)
{
    if (*n < SH_WORD - 1)
        w[(*n)++] = c;
}

/* A quoted part "..." or '...': its text, quotes dropped (a '$' in single quotes is literal,
 * kept as '\x01' so no expansion sees it). */
static void read_quoted(sh *S, char *w, size_t *n)
{
    char q = S->text[S->i++];
    while (S->i < S->len && S->text[S->i] != q) {
        char c = S->text[S->i++];
        if (c == '\n')
            S->line++;
        if (q == '"' && c == '\\' && S->i < S->len)
            c = S->text[S->i++];
        word_put(w, n, q == '\'' && c == '$' ? '\x01' : c);
    }
    S->i += S->i < S->len;
}

/* One word into W; false at the end of the command (W empty). *OP: it is a redirection. */
static bool read_word(sh *S, char *w, bool *redir)
{
    size_t n = 0;
    *redir = false;
    while (peek(S, 0) == ' ' || peek(S, 0) == '\t' ||
           (peek(S, 0) == '\\' && peek(S, 1) == '\n' && (S->line++, S->i++, true)))
        S->i++;
    char c = peek(S, 0);
    if (c == '#') {
        while (S->i < S->len && S->text[S->i] != '\n')
            S->i++;
        c = peek(S, 0);
    }
    if (!c || strchr("\n;|&()", c)) {
        if (c == '&' && peek(S, 1) == '>') { /* &> file */
            S->i += 2 + (peek(S, 2) == '>');
            *redir = true;
            w[0] = '>', w[1] = '\0';
            return true;
        }
        return false;
    }
    if (c == '>' || (c >= '0' && c <= '9' && peek(S, 1) == '>')) {
        S->i += 1 + (c != '>');
        S->i += peek(S, 0) == '>' || peek(S, 0) == '|';
        *redir = true;
        w[0] = '>', w[1] = '\0';
        return true;
    }
    if (c == '<') {
        bool here = peek(S, 1) == '<';
        S->i += 1 + here + (here && peek(S, 2) == '-');
        w[0] = here ? 'H' : '<', w[1] = '\0';
        *redir = true;
        return true;
    }
    while (S->i < S->len) {
        c = S->text[S->i];
        if (strchr(" \t\n;|&()<>", c) && c != '(')
            break;
        if (c == '(' && !(n && w[n - 1] == '$'))
            break;
        if (c == '\'' || c == '"') {
            read_quoted(S, w, &n);
        } else if (c == '\\' && S->i + 1 < S->len) {
            word_put(w, &n, S->text[S->i + 1]);
            S->i += 2;
        } else if (c == '(' || c == '`') { /* $( ... ) or ` ... `, spaces and all */
            size_t start = S->i, end = skip_subst(S->text, S->i); /* text is NUL-ended */
            for (size_t k = start; k < end && k < S->len; k++)
                word_put(w, &n, S->text[k]);
            S->i = end;
        } else {
            word_put(w, &n, c);
            S->i++;
        }
    }
    w[n] = '\0';
    return true;
}

/* Skip the end of a command: one separator, a newline (then a pending here-document). */
static void end_command(sh *S)
{
    char c = peek(S, 0);
    if (!c)
        return;
    S->i++;
    if (c == '\n') {
        S->line++;
    } else if ((c == '&' || c == '|') && peek(S, 0) == c) {
        S->i++;
    }
    if (c != '\n' || !S->heredoc)
        return;
    size_t k = strlen(S->heredoc);
    while (S->i < S->len) { /* the body, up to a line that is the delimiter */
        size_t eol = S->i;
        while (eol < S->len && S->text[eol] != '\n')
            eol++;
        size_t start = S->i;
        while (start < eol && S->text[start] == '\t')
            start++;
        bool last = eol - start == k && !memcmp(S->text + start, S->heredoc, k);
        S->i = eol + (eol < S->len);
        S->line++;
        if (last)
            break;
    }
    S->heredoc = NULL;
}

static bool read_command(sh *S, sh_cmd *c)
{
    char w[SH_WORD];
    bool redir;
    c->n = c->n_redirs = 0;
    c->line = S->line;
    while (read_word(S, w, &redir)) {
        if (redir) {
            char target[SH_WORD];
            bool r2;
            if (!read_word(S, target, &r2) || r2)
                break;
            if (w[0] == 'H') { /* << DELIM: the body is no commands */
                copy(S->heredoc_buf, sizeof S->heredoc_buf, target);
                S->heredoc = S->heredoc_buf;
            } else if (w[0] == '>' && target[0] != '&' && c->n_redirs < SH_MAX_REDIRS) {
                copy(c->redirs[c->n_redirs++], SH_WORD, target);
            }
        } else if (c->n < SH_MAX_WORDS) {
            copy(c->words[c->n++], SH_WORD, w);
        }
    }
    end_command(S);
    return c->n || c->n_redirs;
}

/* ---- commands ---- */

static unsigned env_bit(const char *name)
{
    if (!strcmp(name, "HOME") || !strcmp(name, "USERPROFILE"))
        return TF_SH_ENV_HOME;
    if (!strcmp(name, "XDG_CONFIG_HOME"))
        return TF_SH_ENV_XDG;
    if (!strcmp(name, "GIT_CONFIG_GLOBAL"))
        return TF_SH_ENV_GITCFG;
    if (!strcmp(name, "GIT_CONFIG_SYSTEM"))
        return TF_SH_ENV_GITSYS;
    if (!strcmp(name, "GIT_CONFIG"))
        return TF_SH_ENV_GITCFG | TF_SH_ENV_GITSYS;
    return 0;
}

/* NAME=value: its name length, 0 when W is no assignment. */
static size_t assignment(const char *w)
{
    size_t k = 0;
    while (is_name_char(w[k], k == 0))
        k++;
    return k && w[k] == '=' ? k : 0;
}

static void assign(sh *S, const char *w, size_t k)
{
    if (S->n_vars == SH_MAX_VARS)
        memmove(S->vars, S->vars + 1, sizeof S->vars - sizeof S->vars[0]), S->n_vars--;
    sh_var *v = &S->vars[S->n_vars++];
    snprintf(v->name, sizeof v->name, "%.*s", (int)k, w);
    copy(v->value, sizeof v->value, w + k + 1);
}

/* Builtins that change the shell's own state: assignments, export, cd, set -u. */
static bool builtin(sh *S, const sh_cmd *c, int i)
{
    const char *w = c->words[i];
    if (!strcmp(w, "export") || !strcmp(w, "local") || !strcmp(w, "readonly") ||
        !strcmp(w, "declare")) {
        for (int k = i + 1; k < c->n; k++) {
            size_t nk = assignment(c->words[k]);
            if (nk)
                assign(S, c->words[k], nk);
            char name[48];
            snprintf(name, sizeof name, "%.*s", (int)(nk ? nk : strlen(c->words[k])), c->words[k]);
            if (!strcmp(w, "export") && nk)
                S->env |= env_bit(name);
        }
        return true;
    }
    if ((!strcmp(w, "for") || !strcmp(w, "read")) && i + 1 < c->n) {
        for (int k = i + 1; k < c->n && strcmp(c->words[k], "in"); k++)
            if (c->words[k][0] != '-' && is_name_char(c->words[k][0], true) &&
                strlen(c->words[k]) < 40) {
                char a[300]; /* a word is shorter than 256 (and this one than 40) */
                snprintf(a, sizeof a, "%s=*", c->words[k]); /* set by the loop: not empty */
                assign(S, a, strlen(c->words[k]));
            }
        return true;
    }
    if (!strcmp(w, "cd") || !strcmp(w, "pushd") || !strcmp(w, "popd")) {
        S->after_cd = true;
        return true;
    }
    if (!strcmp(w, "set")) {
        for (int k = i + 1; k < c->n; k++)
            if ((c->words[k][0] == '-' && strchr(c->words[k], 'u')) ||
                !strcmp(c->words[k], "nounset"))
                S->nounset = true;
        return true;
    }
    return false;
}

static void report(sh *S, const sh_cmd *c, tf_sh_cmd *x)
{
    x->line = c->line;
    x->after_cd = S->after_cd;
    S->fn(S->ctx, x);
}

static void run_command(sh *S, sh_cmd *c)
{
    static const char *const prefixes[] = {"if",      "then", "else",  "elif", "do",    "while",
                                           "until",   "!",    "time",  "{",    "}",     "sudo",
                                           "command", "exec", "nohup", "env",  "xargs", NULL};
    unsigned env = S->env;
    int i = 0;
    for (; i < c->n; i++) {
        size_t k = assignment(c->words[i]);
        char name[48];
        if (k) {
            snprintf(name, sizeof name, "%.*s", (int)k, c->words[i]);
            env |= env_bit(name);
        } else if (!in_list(c->words[i], prefixes) &&
                   !(c->words[i][0] == '-' && i && !strcmp(c->words[i - 1], "env"))) {
            break;
        }
    }
    if (i == c->n) { /* assignments only: the script's variables */
        for (int k = 0; k < c->n; k++)
            if (assignment(c->words[k]))
                assign(S, c->words[k], assignment(c->words[k]));
    } else if (!builtin(S, c, i)) {
        const char *argv[SH_MAX_WORDS];
        for (int k = i; k < c->n; k++)
            argv[k - i] = c->words[k];
        tf_sh_cmd x;
        if (tf_sh_classify(argv, c->n - i, env, &x)) {
            if (x.kind == TF_SH_DELETE || x.kind == TF_SH_GIT_FILE || x.kind == TF_SH_SCRIPT)
                expand(S, x.path, &x);
            report(S, c, &x);
        }
    }
    for (int r = 0; r < c->n_redirs; r++) {
        tf_sh_cmd x = {.kind = TF_SH_REDIRECT, .env = env};
        expand(S, c->redirs[r], &x);
        snprintf(x.shown, sizeof x.shown, "> %.80s", c->redirs[r]);
        report(S, c, &x);
    }
}

void tf_sh_scan(const char *text, size_t len, tf_sh_fn fn, void *ctx)
{
    sh_cmd cmd; /* about 18 KB: on the stack, as files are scanned on several threads */
    sh S;       /* the variable table is not zeroed: n_vars says what is in it */
    S.text = text, S.len = len, S.i = 0, S.line = 1, S.n_vars = 0, S.env = 0;
    S.after_cd = S.nounset = false, S.heredoc = NULL, S.fn = fn, S.ctx = ctx;
    while (S.i < S.len) {
        size_t before = S.i;
        if (read_command(&S, &cmd))
            run_command(&S, &cmd);
        if (S.i == before)
            S.i++; /* a stray character: never loop */
    }
}
