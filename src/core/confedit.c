#include "confedit.h"

#include "base/text.h"
#include "toml/toml.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the text around a value -------------------------------------------------------- */

/* The byte offset of POS (line and column in characters) in S. */
static size_t offset_of(const char *s, size_t len, toml_pos pos)
{
    size_t off = 0;
    for (unsigned line = 1; line < pos.line && off < len; off++)
        line += s[off] == '\n';
    for (unsigned col = 1; col < pos.col && off < len; col++)
        for (off++; off < len && ((unsigned char)s[off] & 0xC0) == 0x80;)
            off++;
    return off;
}

/* Just after the string starting at OFF (basic or literal, single or multi-line). */
static size_t skip_string(const char *s, size_t len, size_t off)
{
    char q = s[off];
    bool multi = len - off >= 3 && s[off + 1] == q && s[off + 2] == q;
    for (off += multi ? 3 : 1; off < len; off++) {
        if (q == '"' && s[off] == '\\') {
            off++;
        } else if (s[off] == q &&
                   (!multi || (len - off >= 3 && s[off + 1] == q && s[off + 2] == q))) {
            if (!multi)
                return off + 1;
            off += 3; /* up to two more quotes belong to the string */
            for (int k = 0; k < 2 && off < len && s[off] == q; k++)
                off++;
            return off;
        }
    }
    return len;
}

/* Just after the value starting at OFF: a string, an array or inline table (nested, strings
 * and comments skipped), or a scalar (up to the end of its line, a comment or a separator). */
static size_t skip_value(const char *s, size_t len, size_t off)
{
    if (off < len && (s[off] == '"' || s[off] == '\''))
        return skip_string(s, len, off);
    if (off < len && (s[off] == '[' || s[off] == '{')) {
        size_t depth = 0;
        while (off < len) {
            char c = s[off];
            if (c == '"' || c == '\'') {
                off = skip_string(s, len, off);
                continue;
            }
            if (c == '#')
                while (off < len && s[off] != '\n')
                    off++;
            else if (c == '[' || c == '{')
                depth++;
            else if ((c == ']' || c == '}') && --depth == 0)
                return off + 1;
            off++;
        }
        return len;
    }
    size_t end = off;
    while (end < len && !strchr("\n,]}#", s[end]))
        end++;
    while (end > off && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\r'))
        end--;
    return end;
}

/* Just after the newline ending the line OFF is on (LEN: the last line has none). */
static size_t end_of_line(const char *s, size_t len, size_t off)
{
    while (off < len && s[off] != '\n')
        off++;
    return off < len ? off + 1 : len;
}

/* ---- edits ---------------------------------------------------------------------------- */

/* Replace [FROM, TO) of the old text by TEXT (an insertion when FROM == TO). */
struct edit {
    size_t from, to, seq;
    char *text;
};

struct editor {
    const char *name, *s;
    size_t len;
    struct edit *v;
    size_t n;
    tf_err *err;
};

static int add_edit(struct editor *e, size_t from, size_t to, const char *text)
{
    struct edit *nv = realloc(e->v, (e->n + 1) * sizeof *nv);
    char *t = strdup(text);
    if (nv)
        e->v = nv;
    if (!nv || !t) {
        free(t);
        return tf_errf(e->err, "out of memory");
    }
    e->v[e->n] = (struct edit){from, to, e->n, t};
    e->n++;
    return 0;
}

/* S as a TOML basic string (JSON's escapes are TOML's, minus none it uses), into OUT. */
static int quote(char *out, size_t cap, const char *s, tf_err *err)
{
    bool cut = false;
    tf_json_escape(out, cap, s, &cut);
    return cut ? tf_errf(err, "a value is too long for the config: %.80s", s) : 0;
}

/* LINE (ending in a newline) inserted at AT, the start of a line, or the end of a last line
 * without a newline, which then gets one first. */
static int insert_line(struct editor *e, size_t at, const char *line)
{
    if (at == e->len && at && e->s[at - 1] != '\n') {
        char *l = malloc(strlen(line) + 2);
        if (!l)
            return tf_errf(e->err, "out of memory");
        snprintf(l, strlen(line) + 2, "\n%s", line);
        int rc = add_edit(e, at, at, l);
        free(l);
        return rc;
    }
    return add_edit(e, at, at, line);
}

/* Where a new key line goes in TABLE: after the last line holding a plain key of it (not a
 * sub-table), else after its [header] line (ROOT: the top of the file). */
static size_t key_spot(const struct editor *e, const toml_value *table, bool root)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < toml_table_len(table); i++) {
        const toml_value *v = toml_table_value(table, i);
        toml_type t = toml_type_of(v);
        if (t == TOML_TABLE || (t == TOML_ARRAY && toml_array_len(v) &&
                                toml_type_of(toml_array_at(v, 0)) == TOML_TABLE))
            continue;
        size_t end = skip_value(e->s, e->len, offset_of(e->s, e->len, toml_pos_of(v)));
        if (best == SIZE_MAX || end > best)
            best = end;
    }
    if (best != SIZE_MAX)
        return end_of_line(e->s, e->len, best);
    return root ? 0 : end_of_line(e->s, e->len, offset_of(e->s, e->len, toml_pos_of(table)));
}

/* Is the line at OFF the header [NAME] (spaces aside)? A table made by a deeper header
 * ([tool.testfence.env] alone) has that header's place, and no line of its own. */
static bool header_is(const struct editor *e, size_t off, const char *name)
{
    size_t n = strlen(name), k = 0;
    if (off >= e->len || e->s[off] != '[')
        return false;
    for (off++; off < e->len && e->s[off] != ']' && e->s[off] != '\n'; off++)
        if (e->s[off] != ' ' && e->s[off] != '\t' && (k >= n || e->s[off] != name[k++]))
            return false;
    return k == n && off < e->len && e->s[off] == ']';
}

/* After the last item of a multi-line array ending at END: the offset just after its comma
 * (or END when it has none, *COMMA false), when only a comment or nothing follows on its line;
 * else SIZE_MAX (the ']' follows on the line). */
static size_t line_rest(const struct editor *e, size_t end, bool *comma)
{
    size_t i = end;
    while (i < e->len && (e->s[i] == ' ' || e->s[i] == '\t'))
        i++;
    *comma = i < e->len && e->s[i] == ',';
    size_t after = *comma ? i + 1 : end;
    for (i = after; i < e->len && (e->s[i] == ' ' || e->s[i] == '\t' || e->s[i] == '\r');)
        i++;
    return i >= e->len || e->s[i] == '\n' || e->s[i] == '#' ? after : SIZE_MAX;
}

/* The items of C as lines of their own, indented as the last item (its line at BOL, INDENT
 * long), each followed by a comma but the last when the old last had none. */
static int item_lines(struct editor *e, const struct confedit_change *c, size_t bol, size_t indent,
                      bool comma, char *text, size_t cap)
{
    char q[8192];
    size_t used = 0;
    for (size_t i = 0; i < c->noutputs; i++) {
        if (quote(q, sizeof q, c->outputs[i], e->err) < 0)
            return -1;
        bool last = i + 1 == c->noutputs;
        int k = snprintf(text + used, cap - used, "%.*s%s%s\n", (int)indent, e->s + bol, q,
                         !last || comma ? "," : "");
        if (k < 0 || (size_t)k >= cap - used)
            return tf_errf(e->err, "too many outputs to add at once");
        used += (size_t)k;
    }
    return 0;
}

/* The new items appended to the array ARR. One item a line: new lines after the last item's
 * (its comment stays on it). Else on the same line, after the last item (an empty array: after
 * its '['). */
static int add_to_array(struct editor *e, const toml_value *arr, const struct confedit_change *c)
{
    char q[8192], text[16384];
    size_t at = offset_of(e->s, e->len, toml_pos_of(arr)) + 1, n = toml_array_len(arr), used = 0;
    if (n) {
        toml_pos last = toml_pos_of(toml_array_at(arr, n - 1));
        size_t lo = offset_of(e->s, e->len, last), bol, indent = 0, rest;
        bool comma;
        at = skip_value(e->s, e->len, lo);
        bol = offset_of(e->s, e->len, (toml_pos){last.line, 1});
        while (bol + indent < lo && (e->s[bol + indent] == ' ' || e->s[bol + indent] == '\t'))
            indent++;
        if (last.line > toml_pos_of(arr).line && (rest = line_rest(e, at, &comma)) != SIZE_MAX) {
            size_t eol = end_of_line(e->s, e->len, rest);
            return (comma || add_edit(e, at, at, ",") == 0) &&
                           item_lines(e, c, bol, indent, comma, text, sizeof text) == 0
                       ? insert_line(e, eol, text)
                       : -1;
        }
    }
    for (size_t i = 0; i < c->noutputs; i++) {
        if (quote(q, sizeof q, c->outputs[i], e->err) < 0)
            return -1;
        int k = snprintf(text + used, sizeof text - used, "%s%s", !i && !n ? "" : ", ", q);
        if (k < 0 || (size_t)k >= sizeof text - used)
            return tf_errf(e->err, "too many outputs to add at once");
        used += (size_t)k;
    }
    return add_edit(e, at, at, text);
}

/* "outputs = [...]\n" for the items of C, into OUT. */
static int outputs_line(const struct confedit_change *c, char *out, size_t cap, tf_err *err)
{
    char q[8192];
    size_t used = (size_t)snprintf(out, cap, "outputs = [");
    for (size_t i = 0; i < c->noutputs; i++) {
        if (quote(q, sizeof q, c->outputs[i], err) < 0)
            return -1;
        int k = snprintf(out + used, cap - used, "%s%s", i ? ", " : "", q);
        if (k < 0 || (size_t)k >= cap - used)
            return tf_errf(err, "too many outputs to add at once");
        used += (size_t)k;
    }
    return snprintf(out + used, cap - used, "]\n") < (int)(cap - used)
               ? 0
               : tf_errf(err, "too many outputs to add at once");
}

/* "NAME = "VALUE"\n" into OUT. */
static int env_line(const char *name, const char *value, char *out, size_t cap, tf_err *err)
{
    char q[8192];
    if (quote(q, sizeof q, value, err) < 0)
        return -1;
    int k = snprintf(out, cap, "%s = %s\n", name, q);
    return k > 0 && (size_t)k < cap ? 0 : tf_errf(err, "[env] %s: too long", name);
}

/* Is NAME a bare TOML key (what [env] names are: letters, digits, _)? */
static bool bare_key(const char *name)
{
    static const char ok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
    return name[0] && strspn(name, ok) == strlen(name);
}

/* ---- the whole change ----------------------------------------------------------------- */

/* The text appended at the end: what goes in tables that are not there. */
struct tail {
    char text[65536];
    size_t used;
    bool env; /* it has the [env] header */
};

static int tail_add(struct tail *t, const char *s, tf_err *err)
{
    int k = snprintf(t->text + t->used, sizeof t->text - t->used, "%s", s);
    if (k < 0 || (size_t)k >= sizeof t->text - t->used)
        return tf_errf(err, "too much to add to the config at once");
    t->used += (size_t)k;
    return 0;
}

static int plan_outputs(struct editor *e, const toml_value *table, bool root,
                        const struct confedit_change *c, struct tail *t)
{
    char line[16384];
    const toml_value *arr = table ? toml_get_key(table, "outputs", 7) : NULL;
    if (!c->noutputs)
        return 0;
    if (arr && toml_type_of(arr) != TOML_ARRAY)
        return tf_errf(e->err, "%s: \"outputs\" is not an array; edit it by hand", e->name);
    if (arr)
        return add_to_array(e, arr, c);
    if (outputs_line(c, line, sizeof line, e->err) < 0)
        return -1;
    if (!table)
        return tail_add(t, line, e->err);
    return insert_line(e, key_spot(e, table, root), line);
}

/* The variables of C set in TABLE's env (made at the end when missing; PREFIX its name's
 * start, "tool.testfence." or ""): a value replaced in place, a new variable after the last. */
static int plan_env(struct editor *e, const toml_value *table, const char *prefix,
                    const struct confedit_change *c, struct tail *t)
{
    const toml_value *env = table ? toml_get_key(table, "env", 3) : NULL;
    char line[16384], q[8192];
    if (env && toml_type_of(env) != TOML_TABLE)
        return tf_errf(e->err, "%s: \"env\" is not a table; edit it by hand", e->name);
    for (size_t i = 0; i < c->nenv; i++) {
        const char *name = c->env_names[i];
        const toml_value *v = env ? toml_get_key(env, name, strlen(name)) : NULL;
        if (!bare_key(name))
            return tf_errf(e->err, "[env] %s: not a variable name", name);
        size_t from = v ? offset_of(e->s, e->len, toml_pos_of(v)) : 0;
        if (v && (quote(q, sizeof q, c->env_values[i], e->err) < 0 ||
                  add_edit(e, from, skip_value(e->s, e->len, from), q) < 0))
            return -1;
        if (v)
            continue;
        if (env_line(name, c->env_values[i], line, sizeof line, e->err) < 0)
            return -1;
        if (env && insert_line(e, key_spot(e, env, false), line) < 0)
            return -1;
        if (!env && !t->env &&
            (tail_add(t, t->used || e->len || e->n ? "\n[" : "[", e->err) < 0 ||
             tail_add(t, prefix, e->err) < 0 || tail_add(t, "env]\n", e->err) < 0))
            return -1;
        t->env = true;
        if (!env && tail_add(t, line, e->err) < 0)
            return -1;
    }
    return 0;
}

static int by_place(const void *a, const void *b)
{
    const struct edit *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The old text with the edits and the tail made, into *OUT. */
static int build(struct editor *e, const struct tail *t, char **out, size_t *outlen)
{
    size_t n = e->len + t->used + 2;
    for (size_t i = 0; i < e->n; i++)
        n += strlen(e->v[i].text);
    char *b = malloc(n);
    if (!b)
        return tf_errf(e->err, "out of memory");
    if (e->n) /* qsort wants a base even for nothing */
        qsort(e->v, e->n, sizeof *e->v, by_place);
    size_t used = 0, at = 0;
    for (size_t i = 0; i < e->n; i++) {
        memcpy(b + used, e->s + at, e->v[i].from - at);
        used += e->v[i].from - at;
        memcpy(b + used, e->v[i].text, strlen(e->v[i].text));
        used += strlen(e->v[i].text);
        at = e->v[i].to > at ? e->v[i].to : at;
    }
    memcpy(b + used, e->s + at, e->len - at);
    used += e->len - at;
    if (t->used && used && b[used - 1] != '\n')
        b[used++] = '\n';
    memcpy(b + used, t->text, t->used);
    used += t->used;
    b[used] = '\0';
    *out = b;
    *outlen = used;
    return 0;
}

/* ---- checking the result ---------------------------------------------------------------- */

static bool array_has(const toml_value *arr, const char *s)
{
    for (size_t i = 0; arr && i < toml_array_len(arr); i++) {
        const char *v = toml_string(toml_array_at(arr, i), NULL);
        if (v && !strcmp(v, s))
            return true;
    }
    return false;
}

/* The new text must hold what was asked where it was asked, and TABLE (OLD_KEYS keys before)
 * no new key but outputs and env. */
static int verify(const char *name, const char *data, size_t len, const char *table,
                  size_t old_keys, const struct confedit_change *c, tf_err *err)
{
    toml_doc *doc;
    tf_err why;
    if (toml_parse(name, data, len, 0, &doc, &why) < 0)
        return tf_errf(err, "editing %s would break it (%s); edit it by hand", name, why.msg);
    const toml_value *t = table[0] ? toml_get(toml_root(doc), table) : toml_root(doc);
    const toml_value *arr = t ? toml_get_key(t, "outputs", 7) : NULL;
    const toml_value *env = t ? toml_get_key(t, "env", 3) : NULL;
    bool ok = t && toml_table_len(t) <= old_keys + 2;
    for (size_t i = 0; ok && i < c->noutputs; i++)
        ok = array_has(arr, c->outputs[i]);
    for (size_t i = 0; ok && i < c->nenv; i++) {
        const char *n = c->env_names[i];
        const toml_value *v = env ? toml_get_key(env, n, strlen(n)) : NULL;
        const char *s = v ? toml_string(v, NULL) : NULL;
        ok = s && !strcmp(s, c->env_values[i]);
    }
    toml_free(doc);
    return ok ? 0
              : tf_errf(err, "editing %s did not give [%s] what was asked; edit it by hand", name,
                        table[0] ? table : "the top level");
}

/* TABLE's own place for new keys, or NULL when it has none: a table made only by a deeper
 * header ([tool.testfence.env] alone) has neither a [header] line nor a key of its own. */
static const toml_value *own_table(const struct editor *e, const toml_value *tab, const char *table)
{
    if (!tab || !table[0])
        return tab;
    size_t at = offset_of(e->s, e->len, toml_pos_of(tab));
    if (header_is(e, at, table) || key_spot(e, tab, false) != end_of_line(e->s, e->len, at))
        return tab;
    return NULL;
}

int confedit_apply(const char *name, const char *data, size_t len, const char *table,
                   const struct confedit_change *change, char **out, size_t *outlen, tf_err *err)
{
    toml_doc *doc;
    if (toml_parse(name, data, len, 0, &doc, err) < 0)
        return -1;
    struct editor e = {name, data, len, NULL, 0, err};
    struct tail *t = calloc(1, sizeof *t);
    const toml_value *tab = table[0] ? toml_get(toml_root(doc), table) : toml_root(doc);
    const toml_value *own = own_table(&e, tab, table);
    char prefix[256];
    snprintf(prefix, sizeof prefix, "%s%s", table, table[0] ? "." : "");
    int rc = t ? 0 : tf_errf(err, "out of memory");
    if (rc == 0 && !own && table[0] && change->noutputs)
        rc = tail_add(t, len ? "\n[" : "[", err) < 0 || tail_add(t, table, err) < 0 ||
                     tail_add(t, "]\n", err) < 0
                 ? -1
                 : 0;
    if (rc == 0)
        rc = plan_outputs(&e, own, !table[0], change, t);
    if (rc == 0)
        rc = plan_env(&e, tab, prefix, change, t);
    if (rc == 0)
        rc = build(&e, t, out, outlen);
    if (rc == 0 &&
        (rc = verify(name, *out, *outlen, table, tab ? toml_table_len(tab) : 0, change, err)) < 0)
        free(*out);
    for (size_t i = 0; i < e.n; i++)
        free(e.v[i].text);
    free(e.v);
    free(t);
    toml_free(doc);
    return rc;
}

/* ---- the diff ---------------------------------------------------------------------------- */

struct lines {
    const char **at;
    size_t *len; /* with the newline */
    size_t n;
};

static int split(const char *s, size_t len, struct lines *l)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += s[i] == '\n';
    n += len && s[len - 1] != '\n';
    l->at = malloc((n + 1) * sizeof *l->at);
    l->len = malloc((n + 1) * sizeof *l->len);
    l->n = 0;
    if (!l->at || !l->len)
        return -1;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && s[e] != '\n')
            e++;
        e += e < len;
        l->at[l->n] = s + i;
        l->len[l->n++] = e - i;
        i = e;
    }
    return 0;
}

static bool same_line(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
    return a->len[i] == b->len[j] && !memcmp(a->at[i], b->at[j], a->len[i]);
}

/* One line of the diff: its mark, the line, and git's note when it has no newline. */
static void put_line(FILE *f, char mark, const struct lines *l, size_t i)
{
    fputc(mark, f);
    fwrite(l->at[i], 1, l->len[i], f);
    if (!l->len[i] || l->at[i][l->len[i] - 1] != '\n')
        fputs("\n\\ No newline at end of file\n", f);
}

/* The script of the diff: for each step, 0 same, 1 removed from A, 2 added from B. Lines the
 * two share at the start and the end are the same steps without asking: the edits are a few
 * lines, so the table of the longest common subsequence is only as big as what lies between
 * (a whole table of a 12,000-line pyproject.toml took 566 MB). */
static unsigned char *script(const struct lines *a, const struct lines *b, size_t *nsteps)
{
    size_t p = 0, q = 0;
    while (p < a->n && p < b->n && same_line(a, p, b, p))
        p++;
    while (q < a->n - p && q < b->n - p && same_line(a, a->n - 1 - q, b, b->n - 1 - q))
        q++;
    size_t n = a->n - p - q, m = b->n - p - q;
    if (n && m > SIZE_MAX / 4 / n)
        return NULL;
    uint32_t *lcs = calloc((n + 1) * (m + 1), sizeof *lcs);
    unsigned char *s = malloc(a->n + b->n + 1);
    if (!lcs || !s) {
        free(lcs);
        free(s);
        return NULL;
    }
#define L(i, j) lcs[(size_t)(i) * (m + 1) + (j)]
#define SAME(i, j) same_line(a, p + (i), b, p + (j))
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;)
            L(i, j) = SAME(i, j)                   ? L(i + 1, j + 1) + 1
                      : L(i + 1, j) >= L(i, j + 1) ? L(i + 1, j)
                                                   : L(i, j + 1);
    size_t i = 0, j = 0, k = 0;
    while (k < p)
        s[k++] = 0;
    while (i < n || j < m) {
        if (i < n && j < m && SAME(i, j))
            s[k++] = 0, i++, j++;
        else if (i < n && (j == m || L(i + 1, j) >= L(i, j + 1)))
            s[k++] = 1, i++; /* what goes before what comes, as diff(1) prints them */
        else
            s[k++] = 2, j++;
    }
    for (size_t e = 0; e < q; e++)
        s[k++] = 0;
#undef SAME
#undef L
    free(lcs);
    *nsteps = k;
    return s;
}

/* The hunk of steps [FROM, TO), starting at lines I of A and J of B. */
static void hunk(FILE *f, const unsigned char *s, size_t from, size_t to, size_t i, size_t j,
                 const struct lines *a, const struct lines *b)
{
    size_t na = 0, nb = 0;
    for (size_t k = from; k < to; k++)
        na += s[k] != 2, nb += s[k] != 1;
    fprintf(f, "@@ -%zu,%zu +%zu,%zu @@\n", na ? i + 1 : i, na, nb ? j + 1 : j, nb);
    for (size_t k = from; k < to; k++) {
        if (s[k] == 0)
            put_line(f, ' ', a, i++), j++;
        else if (s[k] == 1)
            put_line(f, '-', a, i++);
        else
            put_line(f, '+', b, j++);
    }
}

static void hunks(FILE *f, const unsigned char *s, size_t n, const struct lines *a,
                  const struct lines *b)
{
    enum { CONTEXT = 3 };
    size_t k = 0, i = 0, j = 0;
    while (k < n) {
        size_t first = k;
        while (first < n && s[first] == 0)
            first++;
        if (first == n)
            return;
        size_t start = first > k + CONTEXT ? first - CONTEXT : k, end = first;
        for (size_t same = 0; end < n && same <= 2 * CONTEXT; end++)
            same = s[end] == 0 ? same + 1 : 0;
        while (end > first && s[end - 1] == 0)
            end--;
        size_t stop = end + CONTEXT < n ? end + CONTEXT : n;
        for (size_t q = k; q < start; q++)
            i += s[q] != 2, j += s[q] != 1;
        hunk(f, s, start, stop, i, j, a, b);
        for (size_t q = start; q < stop; q++)
            i += s[q] != 2, j += s[q] != 1;
        k = stop;
    }
}

int confedit_diff(FILE *f, const char *from, const char *to, const char *old, size_t oldlen,
                  const char *new_, size_t newlen, tf_err *err)
{
    struct lines a = {0}, b = {0};
    size_t n = 0;
    unsigned char *s = NULL;
    if (oldlen == newlen && !memcmp(old, new_, oldlen))
        return 0;
    int rc = 0;
    if (split(old, oldlen, &a) == 0 && split(new_, newlen, &b) == 0 && (s = script(&a, &b, &n))) {
        fprintf(f, "--- %s\n+++ %s\n", from, to);
        hunks(f, s, n, &a, &b);
    } else {
        rc = tf_errf(err, "out of memory for the diff of %s", to);
    }
    free(s);
    free(a.at);
    free(a.len);
    free(b.at);
    free(b.len);
    return rc;
}
