#include "audit_pathval.h"

#include <ctype.h>
#include <string.h>

void tf_pv_unknown(tf_pathval *pv)
{
    pv->kind = TF_PATH_UNKNOWN;
    pv->object = pv->wild = pv->or_default = pv->home_early = false;
    pv->up = 0;
    pv->state = 0;
    pv->ext[0] = '\0';
    pv->text[0] = '\0';
}

void tf_pv_literal(tf_pathval *pv, const char *s, size_t len, bool object)
{
    tf_pv_unknown(pv);
    if (len >= sizeof pv->text)
        return;
    memcpy(pv->text, s, len);
    pv->text[len] = '\0';
    pv->kind = TF_PATH_LITERAL;
    pv->object = object;
}

void tf_pv_file(tf_pathval *pv, bool object)
{
    tf_pv_unknown(pv);
    pv->kind = TF_PATH_FILE;
    pv->up = -1;
    pv->object = object;
}

void tf_pv_based(tf_pathval *pv, tf_path_kind kind, bool object)
{
    unsigned state = pv->state;
    char ext[sizeof pv->ext];
    memcpy(ext, pv->ext, sizeof ext);
    tf_pv_unknown(pv);
    pv->kind = kind;
    pv->object = object;
    pv->state = state;
    memcpy(pv->ext, ext, sizeof ext);
}

/* Values with a base and components below it (all but LITERAL and UNKNOWN). */
static bool is_based(const tf_pathval *pv)
{
    return pv->kind == TF_PATH_FILE || pv->kind == TF_PATH_CWD || pv->kind == TF_PATH_TEMP ||
           pv->kind == TF_PATH_EXTERN || pv->kind == TF_PATH_PARAM;
}

bool tf_path_is_absolute(const char *s)
{
    if (s[0] == '/' || (s[0] == '\\' && s[1] == '\\'))
        return true;
    if (s[0] == '~' && (s[1] == '\0' || s[1] == '/' || s[1] == '\\'))
        return true;
    return isalpha((unsigned char)s[0]) && s[1] == ':' && (s[2] == '/' || s[2] == '\\');
}

static bool is_sep(char c)
{
    return c == '/' || c == '\\';
}

/* Drop the last component of a FILE value's text, or climb one more level. */
static void file_parent(tf_pathval *pv)
{
    if (pv->up < 0) {
        pv->up = 0;
        return;
    }
    char *slash = strrchr(pv->text, '/');
    if (slash)
        *slash = '\0';
    else if (pv->text[0])
        pv->text[0] = '\0';
    else
        pv->up++;
}

/* Apply one component to a FILE value ("..", ".", or a name). */
static bool file_component(tf_pathval *pv, const char *c, size_t len)
{
    if (len == 0 || (len == 1 && c[0] == '.'))
        return true;
    if (len == 2 && c[0] == '.' && c[1] == '.') {
        file_parent(pv);
        return true;
    }
    if (pv->up < 0) /* a name below the file itself: not a real path, stay lexical */
        pv->up = 0;
    size_t have = strlen(pv->text);
    if (have + 1 + len >= sizeof pv->text)
        return false;
    if (have)
        pv->text[have++] = '/';
    memcpy(pv->text + have, c, len);
    pv->text[have + len] = '\0';
    return true;
}

static void join_file(tf_pathval *pv, const char *comp, size_t len)
{
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && !is_sep(comp[j]))
            j++;
        if (!file_component(pv, comp + i, j - i)) {
            tf_pv_unknown(pv);
            return;
        }
        i = j + 1;
    }
}

static void join_literal(tf_pathval *pv, const char *comp, size_t len)
{
    size_t have = strlen(pv->text);
    bool sep = have && !is_sep(pv->text[have - 1]) && len;
    if (have + sep + len >= sizeof pv->text) {
        tf_pv_unknown(pv);
        return;
    }
    if (sep)
        pv->text[have++] = '/';
    memcpy(pv->text + have, comp, len);
    pv->text[have + len] = '\0';
}

void tf_pv_join(tf_pathval *pv, const char *comp, size_t len)
{
    if (pv->kind == TF_PATH_UNKNOWN) {
        tf_pv_unknown(pv);
        return;
    }
    char head[4] = {0};
    memcpy(head, comp, len < 3 ? len : 3);
    if (tf_path_is_absolute(head) || (len && comp[0] == '/')) {
        bool object = pv->object;
        tf_pv_literal(pv, comp, len, object);
        return;
    }
    if (is_based(pv))
        join_file(pv, comp, len);
    else
        join_literal(pv, comp, len);
}

void tf_pv_parent(tf_pathval *pv)
{
    if (is_based(pv)) {
        file_parent(pv);
        return;
    }
    if (pv->kind != TF_PATH_LITERAL)
        return;
    size_t n = strlen(pv->text);
    while (n > 1 && is_sep(pv->text[n - 1]))
        n--;
    while (n > 0 && !is_sep(pv->text[n - 1]))
        n--;
    if (n == 0) {
        memcpy(pv->text, ".", 2);
        return;
    }
    while (n > 1 && is_sep(pv->text[n - 1]))
        n--;
    pv->text[n] = '\0';
}

void tf_pv_set_name(tf_pathval *pv, const char *name, size_t len)
{
    if (pv->kind == TF_PATH_UNKNOWN)
        return;
    if (pv->kind == TF_PATH_FILE && pv->up < 0) {
        pv->up = 0;
    } else if (is_based(pv) && !pv->text[0]) {
        file_parent(pv); /* the directory's own name is replaced: climb, then descend */
    } else {
        tf_pv_parent(pv);
        if (pv->kind == TF_PATH_LITERAL && !strcmp(pv->text, "."))
            pv->text[0] = '\0';
    }
    tf_pv_join(pv, name, len);
}

void tf_pv_set_suffix(tf_pathval *pv, const char *suffix, size_t len)
{
    /* __file__ with another suffix stays next to the file: nothing to track. */
    if (pv->kind == TF_PATH_UNKNOWN || (pv->kind == TF_PATH_FILE && pv->up < 0))
        return;
    char *base = pv->text;
    for (char *p = pv->text; *p; p++)
        if (is_sep(*p))
            base = p + 1;
    char *dot = strrchr(base, '.');
    if (dot && dot != base)
        *dot = '\0';
    size_t have = strlen(pv->text);
    if (have + len >= sizeof pv->text) {
        tf_pv_unknown(pv);
        return;
    }
    memcpy(pv->text + have, suffix, len);
    pv->text[have + len] = '\0';
}

/* Push component C onto the normalised output, applying "..". */
static bool push_comp(char *out, size_t outlen, size_t *n, size_t floor, const char *c, size_t len)
{
    if (len == 2 && c[0] == '.' && c[1] == '.') {
        size_t k = *n;
        while (k > floor && out[k - 1] != '/')
            k--;
        bool last_is_dotdot = (*n - k == 2 && out[k] == '.' && out[k + 1] == '.');
        if (*n > floor && !last_is_dotdot) {
            *n = k > floor ? k - 1 : floor;
            return true;
        }
        if (floor > 0 && *n == floor) /* ".." at an absolute root stays at the root */
            return true;
    }
    if (*n + 1 + len >= outlen)
        return false;
    if (*n > floor)
        out[(*n)++] = '/';
    memcpy(out + *n, c, len);
    *n += len;
    return true;
}

bool tf_path_normalise(const char *s, char *out, size_t outlen)
{
    size_t n = 0, floor = 0;
    if (outlen < 4)
        return false;
    if (s[0] == '/') {
        out[n++] = '/';
        floor = 1;
    }
    const char *p = s;
    while (*p) {
        while (*p == '/')
            p++;
        size_t len = strcspn(p, "/");
        if (!len)
            break;
        if (!(len == 1 && p[0] == '.') && !push_comp(out, outlen, &n, floor, p, len))
            return false;
        p += len;
    }
    if (n == 0)
        out[n++] = '.';
    out[n] = '\0';
    return true;
}

bool tf_path_within(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n && dir[n - 1] == '/')
        n--;
    return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}
