/* seatbelt: see seatbelt.h. The profile allows everything (reading, executing, the network)
 * and then denies file-write* but beneath the rules: in SBPL the last matching rule wins. */
#include "seatbelt.h"

#include "base/text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* /dev/fd and the ttys: a process reopening its own stdout (/dev/stdout is /dev/fd/1) or
 * its terminal; /dev/dtracehelper: every dyld-linked process opens it for writing. */
const struct sb_rule sb_system_rules[] = {
    {"/dev/null", false},         {"/dev/zero", false},   {"/dev/tty", false},
    {"/dev/ptmx", false},         {"/dev/stdout", false}, {"/dev/stderr", false},
    {"/dev/dtracehelper", false}, {"/dev/fd", true},      {NULL, false},
};

int sb_quote(char *out, size_t cap, const char *path, tf_err *err)
{
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)path;
    if (cap < 3)
        return tf_errf(err, "sandbox profile: no room for %s", path);
    out[o++] = '"';
    while (*p) {
        size_t len = *p < 0x80 ? 1 : tf_utf8_len(p, SIZE_MAX);
        if (len == 0 || *p < 0x20 || *p == 0x7f)
            return tf_errf(err,
                           "sandbox profile: %s holds a control character or invalid UTF-8: "
                           "it cannot be written in a Seatbelt profile safely",
                           path);
        bool esc = *p == '"' || *p == '\\';
        if (o + len + esc + 2 > cap)
            return tf_errf(err, "sandbox profile: %s is too long", path);
        if (esc)
            out[o++] = '\\';
        memcpy(out + o, p, len);
        o += len;
        p += len;
    }
    out[o++] = '"';
    out[o] = '\0';
    return 0;
}

/* One rule's line, "    (subpath \"...\")\n", to F. */
static int put_rule(FILE *f, const struct sb_rule *r, tf_err *err)
{
    char q[2 * 4096 + 3];
    if (r->path[0] != '/')
        return tf_errf(err, "sandbox profile: %s is not an absolute path", r->path);
    if (sb_quote(q, sizeof q, r->path, err) < 0)
        return -1;
    fprintf(f, "    (%s %s)\n", r->subtree ? "subpath" : "literal", q);
    return 0;
}

static int put_profile(FILE *f, const struct sb_rule *rules, size_t n, tf_err *err)
{
    fputs("(version 1)\n"
          "; testfence run: writes are denied but to the writable set, the run's temp dir\n"
          "; and the system set (docs/platforms.md); everything else is allowed.\n"
          "(allow default)\n"
          "(deny file-write*)\n"
          "(allow file-write*\n",
          f);
    for (size_t i = 0; i < n; i++)
        if (put_rule(f, &rules[i], err) < 0)
            return -1;
    fputs("    ; the system set\n", f);
    for (const struct sb_rule *r = sb_system_rules; r->path; r++)
        if (put_rule(f, r, err) < 0)
            return -1;
    fputs("    (regex #\"^/dev/ttys[0-9]+$\"))\n", f);
    return 0;
}

int sb_profile(const struct sb_rule *rules, size_t n, char **out, tf_err *err)
{
    size_t len = 0;
    *out = NULL;
    char *text = NULL;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return tf_errf(err, "sandbox profile: out of memory");
    int rc = put_profile(f, rules, n, err);
    if (fclose(f) != 0 && rc == 0)
        rc = tf_errf(err, "sandbox profile: out of memory");
    if (rc < 0) {
        free(text);
        return -1;
    }
    *out = text;
    return 0;
}
