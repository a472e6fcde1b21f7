#include "verify.h"

#include "base/vec.h"
#include "oscalls.h"
#include "walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- content hash: XXH64, written out so there is no dependency ---- */

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

struct xxh64 {
    uint64_t v[4], total;
    unsigned char mem[32];
    size_t memsize;
};

static uint64_t rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

/* Native byte order: the reference algorithm is little-endian, but a fingerprint
 * only ever compares with one taken on the same machine. */
static uint64_t read64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint32_t read32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint64_t xxh_round(uint64_t acc, uint64_t input)
{
    return rotl64(acc + input * P2, 31) * P1;
}

static uint64_t xxh_merge(uint64_t h, uint64_t v)
{
    return (h ^ xxh_round(0, v)) * P1 + P4;
}

static void xxh_init(struct xxh64 *s)
{
    memset(s, 0, sizeof *s);
    s->v[0] = P1 + P2;
    s->v[1] = P2;
    s->v[2] = 0;
    s->v[3] = (uint64_t)0 - P1;
}

static void xxh_stripe(struct xxh64 *s, const unsigned char *p)
{
    for (int i = 0; i < 4; i++)
        s->v[i] = xxh_round(s->v[i], read64(p + 8 * i));
}

static void xxh_update(struct xxh64 *s, const unsigned char *p, size_t len)
{
    s->total += len;
    if (s->memsize) { /* complete the stripe a previous call left open */
        size_t take = 32 - s->memsize < len ? 32 - s->memsize : len;
        memcpy(s->mem + s->memsize, p, take);
        s->memsize += take;
        p += take;
        len -= take;
        if (s->memsize < 32)
            return;
        xxh_stripe(s, s->mem);
        s->memsize = 0;
    }
    for (; len >= 32; p += 32, len -= 32)
        xxh_stripe(s, p);
    memcpy(s->mem, p, len);
    s->memsize = len;
}

static uint64_t xxh_digest(const struct xxh64 *s)
{
    uint64_t h;
    if (s->total >= 32) {
        h = rotl64(s->v[0], 1) + rotl64(s->v[1], 7) + rotl64(s->v[2], 12) + rotl64(s->v[3], 18);
        for (int i = 0; i < 4; i++)
            h = xxh_merge(h, s->v[i]);
    } else {
        h = P5;
    }
    h += s->total;
    const unsigned char *p = s->mem;
    size_t len = s->memsize;
    for (; len >= 8; p += 8, len -= 8)
        h = rotl64(h ^ xxh_round(0, read64(p)), 27) * P1 + P4;
    if (len >= 4) {
        h = rotl64(h ^ (uint64_t)read32(p) * P1, 23) * P2 + P3;
        p += 4;
        len -= 4;
    }
    for (; len; p++, len--)
        h = rotl64(h ^ *p * P5, 11) * P1;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    return h ^ (h >> 32);
}

uint64_t verify_hash(const void *data, size_t len)
{
    struct xxh64 s;
    xxh_init(&s);
    xxh_update(&s, data, len);
    return xxh_digest(&s);
}

/* ---- strings: blocks that never move, so entries can point into them ---- */

#define BLOCK_SIZE (256u * 1024u)

struct verify_block {
    struct verify_block *next;
    size_t used, cap;
    char data[];
};

static const char *arena_add(struct verify_block **head, const char *s, size_t len)
{
    struct verify_block *b = *head;
    if (!b || b->cap - b->used < len + 1) {
        size_t cap = len + 1 > BLOCK_SIZE ? len + 1 : BLOCK_SIZE;
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->next = *head;
        b->used = 0;
        b->cap = cap;
        *head = b;
    }
    char *dst = b->data + b->used;
    memcpy(dst, s, len);
    dst[len] = '\0';
    b->used += len + 1;
    return dst;
}

static void arena_free(struct verify_block *b)
{
    while (b) {
        struct verify_block *next = b->next;
        free(b);
        b = next;
    }
}

/* ---- the walk ---- */

/* One snapshot being taken: the entries so far, and the walker's scratch. */
struct snapper {
    const struct policy *p;
    struct verify_opts o;
    struct verify_snap *s;
    size_t cap;
    struct verify_block *arena;
    char root[PATH_MAX]; /* absolute, symlinks resolved */
    size_t rel_off;      /* where the path below the root starts in a walked path */
    unsigned char *buf;
    size_t bufsize;
};

/* The walked PATH relative to the root ("." for the root itself). */
static const char *rel_of(const struct snapper *w, const char *path, size_t len)
{
    return len < w->rel_off ? "." : path + w->rel_off;
}

static struct verify_entry *add_entry(struct snapper *w, const char *rel)
{
    struct verify_snap *s = w->s;
    struct verify_entry *v = vec_grow(s->entries, &w->cap, s->n, sizeof *v);
    if (!v)
        return NULL;
    s->entries = v;
    const char *path = arena_add(&w->arena, rel, strlen(rel));
    if (!path)
        return NULL;
    struct verify_entry *e = &s->entries[s->n++];
    memset(e, 0, sizeof *e);
    e->path = path;
    return e;
}

static int64_t ns_of(struct timespec t)
{
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void fill_stat(struct verify_entry *e, const struct stat *st)
{
    e->size = (uint64_t)st->st_size;
    e->ino = (uint64_t)st->st_ino;
    e->dev = (uint64_t)st->st_dev;
    e->nlink = (uint64_t)st->st_nlink;
    e->mode = (uint32_t)st->st_mode;
    e->uid = (uint32_t)st->st_uid;
    e->gid = (uint32_t)st->st_gid;
    e->mtime_ns = ns_of(st->st_mtim);
    e->ctime_ns = ns_of(st->st_ctim);
}

/* The extended attributes of the file FD (or, FD < 0, of NAME in DIRFD, not following a
 * symlink), names and values, hashed in the order the kernel lists them (stable for one
 * inode): compared directly, not only through ctime. Unreadable ones count as a value. */
static uint64_t hash_xattrs(int fd, int dirfd, const char *name)
{
    char names[4096], value[4096], path[PATH_MAX + 32];
    if (fd < 0)
        snprintf(path, sizeof path, "/proc/self/fd/%d/%s", dirfd, name);
    ssize_t n = os_xattr_list(fd, path, names, sizeof names);
    if (n <= 0)
        return n < 0 && errno == ERANGE ? UINT64_MAX : 0; /* too many to list: "some" */
    struct xxh64 h;
    xxh_init(&h);
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(names + i) + 1) {
        ssize_t v = os_xattr_get(fd, path, names + i, value, sizeof value);
        xxh_update(&h, (const unsigned char *)names + i, strlen(names + i) + 1);
        if (v > 0)
            xxh_update(&h, (const unsigned char *)value, (size_t)v);
    }
    uint64_t d = xxh_digest(&h);
    return d ? d : 1;
}

/* Hash the first e->size bytes of FD: stopping there saves the read that would
 * return EOF (a fifth syscall per file) and bounds a file that grows while read;
 * a size change is reported on its own. */
static void hash_fd(struct snapper *w, struct verify_entry *e, int fd)
{
    struct xxh64 h;
    xxh_init(&h);
    uint64_t left = e->size;
    while (left) {
        size_t want = left < w->bufsize ? (size_t)left : w->bufsize;
        ssize_t r = read(fd, w->buf, want);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            e->flags |= VERIFY_UNREADABLE;
            e->err = errno;
            w->s->n_unreadable++;
            return;
        }
        if (r == 0)
            break;
        xxh_update(&h, w->buf, (size_t)r);
        left -= (uint64_t)r;
        w->s->bytes_hashed += (uint64_t)r;
    }
    e->hash = xxh_digest(&h);
    e->flags |= VERIFY_HASHED;
    w->s->n_hashed++;
}

/* O_NOATIME keeps the walk from touching atimes; the kernel only grants it to
 * the owner (or CAP_FOWNER), so fall back without it. O_NONBLOCK: a FIFO swapped
 * in after readdir must not hang the walk. */
static int open_file(int dirfd, const char *name)
{
    int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
    int fd = openat(dirfd, name, flags | O_NOATIME);
    if (fd < 0 && errno == EPERM)
        fd = openat(dirfd, name, flags);
    return fd;
}

static void mark_unreadable(struct snapper *w, struct verify_entry *e, int errnum)
{
    e->flags |= VERIFY_UNREADABLE;
    e->err = errnum;
    w->s->n_unreadable++;
}

/* A regular file we mean to hash: open first and fstat the fd, which saves the
 * separate fstatat and guarantees the hash and the stat describe the same inode. */
static void record_by_open(struct snapper *w, struct verify_entry *e, int dirfd, const char *name)
{
    struct stat st;
    int fd = open_file(dirfd, name);
    if (fd < 0) {
        int open_err = errno;
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            e->flags |= VERIFY_NOSTAT;
            e->err = errno;
            return;
        }
        fill_stat(e, &st);
        if (S_ISREG(st.st_mode) && (uint64_t)st.st_size <= w->o.hash_limit)
            mark_unreadable(w, e, open_err);
        return;
    }
    if (fstat(fd, &st) < 0) {
        e->flags |= VERIFY_NOSTAT;
        e->err = errno;
    } else {
        fill_stat(e, &st);
        e->xattrs = hash_xattrs(fd, -1, NULL);
        if (S_ISREG(st.st_mode) && (uint64_t)st.st_size <= w->o.hash_limit)
            hash_fd(w, e, fd);
    }
    close(fd);
}

static int read_target(struct snapper *w, struct verify_entry *e, int dirfd, const char *name)
{
    char t[PATH_MAX];
    ssize_t n = readlinkat(dirfd, name, t, sizeof t - 1);
    if (n < 0) {
        mark_unreadable(w, e, errno);
        return 0;
    }
    e->target = arena_add(&w->arena, t, (size_t)n);
    return e->target ? 0 : -1;
}

/* Record the walked entry WE. Returns its index, or -1 when out of memory. */
static long record(struct snapper *w, const struct walk_entry *we)
{
    int dirfd = we->dirfd;
    const char *name = we->name;
    struct verify_entry *e = add_entry(w, rel_of(w, we->path, we->len));
    if (!e)
        return -1;
    long idx = (long)(w->s->n - 1);
    if (we->type == DT_REG && w->o.hash_limit) {
        record_by_open(w, e, dirfd, name);
        return idx;
    }
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        e->flags |= VERIFY_NOSTAT;
        e->err = errno;
        return idx;
    }
    fill_stat(e, &st);
    if (!S_ISREG(st.st_mode) || !w->o.hash_limit)
        e->xattrs = hash_xattrs(-1, dirfd, name); /* directories, symlinks, devices too */
    if (S_ISREG(st.st_mode) && w->o.hash_limit && (uint64_t)st.st_size <= w->o.hash_limit)
        record_by_open(w, e, dirfd, name); /* the file system gave no d_type */
    else if (S_ISLNK(st.st_mode) && read_target(w, e, dirfd, name) < 0)
        return -1;
    return idx;
}

/* .git/objects is content-addressed and append-only: git never rewrites an
 * object, and a new one is noticed through refs and the index anyway. */
static bool is_git_objects(const struct snapper *w, const struct walk_entry *we)
{
    if (w->o.include_git_objects || strcmp(we->name, "objects") != 0)
        return false;
    size_t n = we->len - strlen(we->name) - 1; /* the parent's end in the path */
    return n >= 5 && !memcmp(we->path + n - 4, ".git", 4) && we->path[n - 5] == '/';
}

static int visit(void *ctx, struct walk_entry *we)
{
    struct snapper *w = ctx;
    if ((w->p && policy_match(w->p, we->path)) || is_git_objects(w, we))
        return 0;
    long idx = record(w, we);
    if (idx < 0)
        return -1;
    const struct verify_entry *e = &w->s->entries[idx];
    we->tag = idx;
    return S_ISDIR(e->mode) && !(e->flags & VERIFY_NOSTAT);
}

/* What the walk could not see is recorded on the directory's entry: a change of it
 * is a difference too. */
static int problem(void *ctx, const struct walk_entry *dir, enum walk_problem what, int errnum)
{
    struct snapper *w = ctx;
    struct verify_entry *e = &w->s->entries[dir->tag];
    static const unsigned flag[] = {[WALK_TOO_DEEP] = VERIFY_TOO_DEEP,
                                    [WALK_UNLISTED] = VERIFY_UNLISTED,
                                    [WALK_PATH_TOO_LONG] = VERIFY_PATH_TOO_LONG};
    e->flags |= flag[what];
    if (what == WALK_UNLISTED)
        e->err = errnum;
    return 0;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const struct verify_entry *)a)->path, ((const struct verify_entry *)b)->path);
}

static int walk_root(struct snapper *w, tf_err *err)
{
    static const struct walk_ops ops = {
        .visit = visit, .problem = problem, .max_depth = VERIFY_MAX_DEPTH};
    int fd = open(w->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return tf_errnof(err, errno, "verify: cannot open the root %s", w->root);
    size_t len = strlen(w->root);
    /* Children of "/" are "/x", not "//x". */
    w->rel_off = len == 1 ? 1 : len + 1;
    if (w->p && policy_match(w->p, w->root)) { /* the whole root is writable */
        close(fd);
        return 0;
    }
    struct stat st;
    struct verify_entry *e = add_entry(w, ".");
    if (!e || fstat(fd, &st) < 0) {
        int errnum = e ? errno : ENOMEM;
        close(fd);
        return tf_errnof(err, errnum, "verify: %s", w->root);
    }
    fill_stat(e, &st);
    if (walk_fd(fd, w->root, 0, &ops, w) < 0)
        return tf_errf(err, "verify: out of memory after %zu entries", w->s->n);
    return 0;
}

void verify_opts_default(struct verify_opts *o)
{
    o->hash_limit = VERIFY_HASH_LIMIT_DEFAULT;
    o->include_git_objects = false;
}

int verify_snapshot(const char *root, const struct policy *p, const struct verify_opts *o,
                    struct verify_snap *out, tf_err *err)
{
    memset(out, 0, sizeof *out);
    struct snapper *w = calloc(1, sizeof *w);
    if (!w)
        return tf_errf(err, "out of memory");
    w->p = p;
    w->s = out;
    if (o)
        w->o = *o;
    else
        verify_opts_default(&w->o);
    w->bufsize = 64 * 1024;
    w->buf = malloc(w->bufsize);
    int rc = -1;
    if (!w->buf)
        tf_errf(err, "out of memory");
    else if (!realpath(root, w->root))
        tf_errnof(err, errno, "verify: root %s", root);
    else
        rc = walk_root(w, err);
    free(w->buf);
    out->blocks = w->arena;
    free(w);
    if (rc < 0) {
        verify_free(out);
        return -1;
    }
    if (out->n) /* qsort(NULL, 0, ...) is undefined */
        qsort(out->entries, out->n, sizeof *out->entries, by_path);
    return 0;
}

void verify_free(struct verify_snap *s)
{
    arena_free(s->blocks);
    free(s->entries);
    memset(s, 0, sizeof *s);
}

/* ---- the diff ---- */

static const char *type_name(uint32_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG:
        return "file";
    case S_IFDIR:
        return "dir";
    case S_IFLNK:
        return "symlink";
    case S_IFIFO:
        return "fifo";
    case S_IFSOCK:
        return "socket";
    case S_IFCHR:
        return "char device";
    case S_IFBLK:
        return "block device";
    }
    return "unknown";
}

/* A change list for one path, joined with "; ". */
struct line {
    char buf[2 * PATH_MAX + 512];
    size_t len;
    int n;
};

static void add(struct line *l, const char *fmt, ...) __attribute__((format(TF_PRINTF, 2, 3)));

static void add(struct line *l, const char *fmt, ...)
{
    if (l->len >= sizeof l->buf)
        return;
    if (l->n++)
        l->len += (size_t)snprintf(l->buf + l->len, sizeof l->buf - l->len, "; ");
    if (l->len >= sizeof l->buf)
        return;
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(l->buf + l->len, sizeof l->buf - l->len, fmt, ap);
    va_end(ap);
    if (r > 0)
        l->len += (size_t)r;
}

/* UTC with nanoseconds: times that differ by less than a second must read differently. */
static const char *fmt_time(int64_t ns, char *out, size_t len)
{
    time_t sec = (time_t)(ns / 1000000000);
    long frac = (long)(ns % 1000000000);
    if (frac < 0) {
        sec--;
        frac += 1000000000;
    }
    struct tm tm;
    if (!gmtime_r(&sec, &tm)) {
        snprintf(out, len, "%" PRId64 "ns", ns);
        return out;
    }
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, len, "%s.%09ldZ", date, frac);
    return out;
}

static const char *state_of(const struct verify_entry *e, char *out, size_t len)
{
    static const struct {
        unsigned flag;
        const char *what;
    } states[] = {
        {VERIFY_NOSTAT, "not stat-able"},
        {VERIFY_UNREADABLE, "unreadable"},
        {VERIFY_UNLISTED, "not listable"},
        {VERIFY_TOO_DEEP, "too deep to walk"},
        {VERIFY_PATH_TOO_LONG, "has paths too long to walk"},
    };
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
        if (e->flags & states[i].flag) {
            if (e->err)
                snprintf(out, len, "%s (%s)", states[i].what, strerror(e->err));
            else
                snprintf(out, len, "%s", states[i].what);
            return out;
        }
    return "readable";
}

#define STATE_FLAGS                                                                                \
    (VERIFY_NOSTAT | VERIFY_UNREADABLE | VERIFY_UNLISTED | VERIFY_TOO_DEEP | VERIFY_PATH_TOO_LONG)

static void diff_meta(struct line *l, const struct verify_entry *a, const struct verify_entry *b)
{
    if (a->ino != b->ino || a->dev != b->dev)
        add(l, "inode %" PRIu64 " → %" PRIu64 " (replaced)", a->ino, b->ino);
    if ((a->mode & 07777) != (b->mode & 07777))
        add(l, "mode %04o → %04o", (unsigned)(a->mode & 07777), (unsigned)(b->mode & 07777));
    if (a->uid != b->uid || a->gid != b->gid)
        add(l, "owner %u:%u → %u:%u", (unsigned)a->uid, (unsigned)a->gid, (unsigned)b->uid,
            (unsigned)b->gid);
    if (a->nlink != b->nlink)
        add(l, "links %" PRIu64 " → %" PRIu64, a->nlink, b->nlink);
    if (a->size != b->size)
        add(l, "size %" PRIu64 " → %" PRIu64, a->size, b->size);
    if (a->xattrs != b->xattrs)
        add(l, "extended attributes changed");
}

static void diff_content(struct line *l, const struct verify_entry *a, const struct verify_entry *b)
{
    if ((a->flags & STATE_FLAGS) != (b->flags & STATE_FLAGS)) {
        char sa[128], sb[128];
        add(l, "%s → %s", state_of(a, sa, sizeof sa), state_of(b, sb, sizeof sb));
    }
    if ((a->flags & b->flags & VERIFY_HASHED) && a->hash != b->hash)
        add(l, "content changed");
    if (a->target && b->target && strcmp(a->target, b->target))
        add(l, "target \"%s\" → \"%s\"", a->target, b->target);
}

static void diff_times(struct line *l, const struct verify_entry *a, const struct verify_entry *b)
{
    char ta[48], tb[48];
    if (a->mtime_ns != b->mtime_ns)
        add(l, "mtime %s → %s", fmt_time(a->mtime_ns, ta, sizeof ta),
            fmt_time(b->mtime_ns, tb, sizeof tb));
    /* Every change above moves ctime too; alone it is the witness of a change
     * not recorded here (an xattr or ACL, content of an unhashed file whose size
     * and mtime were put back). */
    if (a->ctime_ns != b->ctime_ns && !l->n)
        add(l, "ctime %s → %s", fmt_time(a->ctime_ns, ta, sizeof ta),
            fmt_time(b->ctime_ns, tb, sizeof tb));
}

static size_t diff_entry(const struct verify_entry *a, const struct verify_entry *b, FILE *out)
{
    struct line l = {.len = 0, .n = 0};
    if ((a->mode & S_IFMT) != (b->mode & S_IFMT)) {
        add(&l, "type %s → %s (replaced)", type_name(a->mode), type_name(b->mode));
    } else {
        diff_meta(&l, a, b);
        diff_content(&l, a, b);
        diff_times(&l, a, b);
    }
    if (!l.n)
        return 0;
    if (out)
        fprintf(out, "VERIFY: %s: %s\n", a->path, l.buf);
    return 1;
}

static void print_one(const struct verify_entry *e, const char *what, FILE *out)
{
    if (!out)
        return;
    if (e->target)
        fprintf(out, "VERIFY: %s: %s (symlink → \"%s\")\n", e->path, what, e->target);
    else
        fprintf(out, "VERIFY: %s: %s (%s)\n", e->path, what, type_name(e->mode));
}

size_t verify_diff(const struct verify_snap *before, const struct verify_snap *after, FILE *out)
{
    size_t i = 0, j = 0, n = 0;
    while (i < before->n || j < after->n) {
        int c = i == before->n  ? 1
                : j == after->n ? -1
                                : strcmp(before->entries[i].path, after->entries[j].path);
        if (c < 0) {
            print_one(&before->entries[i++], "removed", out);
            n++;
        } else if (c > 0) {
            print_one(&after->entries[j++], "created", out);
            n++;
        } else {
            n += diff_entry(&before->entries[i++], &after->entries[j++], out);
        }
    }
    return n;
}
