#include "audit_script.h"

#include "audit_read.h"
#include "base/vec.h"

#include <stdlib.h>
#include <string.h>

#define SCRIPT_MAX (1u << 20)

static void collect(void *ctx, const tf_sh_cmd *c)
{
    tf_script *s = ctx;
    tf_sh_cmd *nv = vec_grow(s->cmds, &s->cap, s->n, sizeof *nv);
    if (!nv) {
        s->oom = true;
        return;
    }
    s->cmds = nv;
    s->cmds[s->n++] = *c;
}

/* Is SRC a shell script by its name or its first line? */
static bool is_shell(const char *path, const char *src)
{
    static const char *const shells[] = {"/sh",    "/bash",    "/dash",   "/zsh", "/ksh",
                                         "env sh", "env bash", "env zsh", NULL};
    size_t n = strlen(path);
    if ((n > 3 && !strcmp(path + n - 3, ".sh")) || (n > 5 && !strcmp(path + n - 5, ".bash")))
        return true;
    if (strncmp(src, "#!", 2))
        return false;
    size_t eol = strcspn(src, "\n");
    for (int i = 0; shells[i]; i++) {
        const char *at = strstr(src, shells[i]);
        if (at && (size_t)(at - src) < eol)
            return true;
    }
    return false;
}

bool tf_script_scan(const char *path, bool by_shell, tf_script *out)
{
    char msg[256];
    size_t len;
    memset(out, 0, sizeof *out);
    char *src = tf_audit_read(path, SCRIPT_MAX, &len, msg, sizeof msg);
    if (!src)
        return false;
    bool shell = by_shell || is_shell(path, src);
    if (shell)
        tf_sh_scan(src, len, collect, out);
    free(src);
    return shell && !out->oom;
}

void tf_script_free(tf_script *s)
{
    free(s->cmds);
    memset(s, 0, sizeof *s);
}
