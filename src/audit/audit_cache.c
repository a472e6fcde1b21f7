#include "audit_cache.h"

#include "audit_pathval.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* An entry: magic, format, key, payload length and hash, then the facts (tf_facts_save). */
#define CACHE_MAGIC "TFAUDIT1"
#define CACHE_MAX (64u << 20) /* an entry larger than this is not ours */

typedef struct header {
    char magic[8];
    uint64_t key[2];
    uint64_t len;
    uint64_t sum[2];
} header;

/* ---- the hash: two 64-bit multiply-mix lanes over 16-byte blocks ---- */

static uint64_t mix(uint64_t a, uint64_t b)
{
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static uint64_t rd64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Two lanes over the same bytes, one pass: each word is read once and the two multiply
 * chains run side by side (the values are those of two separate passes). */
static void lanes(const unsigned char *p, size_t len, const uint64_t seed[2], const uint64_t s1[4],
                  const uint64_t s2[4], uint64_t out[2])
{
    uint64_t x = seed[0] ^ mix(seed[0] ^ s1[0], s1[1]) ^ len;
    uint64_t y = seed[1] ^ mix(seed[1] ^ s2[0], s2[1]) ^ len;
    size_t i = 0;
    for (; i + 16 <= len; i += 16) {
        uint64_t lo = rd64(p + i), hi = rd64(p + i + 8);
        x = mix(lo ^ s1[1], hi ^ x);
        y = mix(lo ^ s2[1], hi ^ y);
    }
    unsigned char tail[16] = {0};
    memcpy(tail, p + i, len - i);
    out[0] = mix(s1[3] ^ len, mix(rd64(tail) ^ s1[2], rd64(tail + 8) ^ x) ^ s1[0]);
    out[1] = mix(s2[3] ^ len, mix(rd64(tail) ^ s2[2], rd64(tail + 8) ^ y) ^ s2[0]);
}

void tf_hash128(const void *data, size_t len, uint64_t seed, uint64_t out[2])
{
    static const uint64_t s1[4] = {0xa0761d6478bd642full, 0xe7037ed1a0b428dbull,
                                   0x8ebc6af09c88c6e3ull, 0x589965cc75374cc3ull};
    static const uint64_t s2[4] = {0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full,
                                   0x165667b19e3779f9ull, 0x27d4eb2f165667c5ull};
    const uint64_t seeds[2] = {seed, ~seed};
    lanes(data, len, seeds, s1, s2, out);
}

tf_cache_key tf_cache_key_of(const char *src, size_t len, const char *salt)
{
    uint64_t s[2];
    tf_cache_key k;
    tf_hash128(salt, strlen(salt), 0, s);
    tf_hash128(src, len, s[0] ^ s[1], k.h);
    return k;
}

/* ---- the directory ---- */

bool tf_cache_default_dir(char *out, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int w;
    if (xdg && xdg[0] == '/')
        w = snprintf(out, len, "%s/testfence/audit", xdg);
    else if (home && home[0] == '/')
        w = snprintf(out, len, "%s/.cache/testfence/audit", home);
    else
        return false;
    return w > 0 && (size_t)w < len;
}

/* mkdir -p with mode 0700 for the parts we create. */
static bool make_dirs(const char *dir)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return false;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0700) < 0 && errno != EEXIST)
            return false;
        *p = '/';
    }
    return mkdir(buf, 0700) == 0 || errno == EEXIST;
}

bool tf_cache_usable(const char *dir, const char *root, char *why, size_t whylen)
{
    char norm[PATH_MAX], real[PATH_MAX];
    struct stat st;
    if (dir[0] != '/' || !tf_path_normalise(dir, norm, sizeof norm)) {
        snprintf(why, whylen, "%s is not an absolute path", dir);
        return false;
    }
    if (tf_path_within(norm, root) || (realpath(norm, real) && tf_path_within(real, root))) {
        snprintf(why, whylen, "%s is inside the project", norm);
        return false;
    }
    if (!make_dirs(norm) || lstat(norm, &st) < 0) {
        snprintf(why, whylen, "cannot create %s: %s", norm, strerror(errno));
        return false;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
        snprintf(why, whylen, "%s is not a directory only we can write", norm);
        return false;
    }
    if (realpath(norm, real) && tf_path_within(real, root)) {
        snprintf(why, whylen, "%s is inside the project", norm);
        return false;
    }
    return true;
}

/* Append S[0..N) to OUT at *AT, cut to fit OUT[LEN] as snprintf cuts (no snprintf: this runs
 * for every file of a warm run). */
static void put(char *out, size_t len, size_t *at, const char *s, size_t n)
{
    if (n > len - 1 - *at)
        n = len - 1 - *at;
    memcpy(out + *at, s, n);
    *at += n;
    out[*at] = '\0';
}

static void entry_path(const char *dir, const tf_cache_key *key, char *out, size_t len, bool sub)
{
    static const char digits[] = "0123456789abcdef";
    char hex[33];
    for (int i = 0; i < 32; i++)
        hex[i] = digits[(key->h[i / 16] >> (60 - 4 * (i % 16))) & 15];
    hex[32] = '\0';
    size_t at = 0;
    out[0] = '\0';
    put(out, len, &at, dir, strlen(dir));
    put(out, len, &at, "/", 1);
    put(out, len, &at, hex, 2);
    if (!sub) {
        put(out, len, &at, "/", 1);
        put(out, len, &at, hex + 2, 30);
    }
}

bool tf_cache_get(const char *dir, const tf_cache_key *key, tf_facts *out)
{
    char path[PATH_MAX];
    struct stat st;
    entry_path(dir, key, path, sizeof path, false);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool ok = false;
    char *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)sizeof(header) &&
        st.st_size <= CACHE_MAX && (buf = malloc((size_t)st.st_size))) {
        size_t n = 0, want = (size_t)st.st_size;
        ssize_t r = 1;
        while (n < want && (r = read(fd, buf + n, want - n)) > 0)
            n += (size_t)r;
        header h;
        memcpy(&h, buf, sizeof h);
        uint64_t sum[2];
        if (n == want && !memcmp(h.magic, CACHE_MAGIC, 8) && h.key[0] == key->h[0] &&
            h.key[1] == key->h[1] && h.len == want - sizeof h) {
            tf_hash128(buf + sizeof h, (size_t)h.len, key->h[0], sum);
            ok = sum[0] == h.sum[0] && sum[1] == h.sum[1] &&
                 tf_facts_load(out, buf + sizeof h, (size_t)h.len);
        }
    }
    free(buf);
    close(fd);
    return ok;
}

void tf_cache_put(const char *dir, const tf_cache_key *key, const tf_facts *f)
{
    char path[PATH_MAX], sub[PATH_MAX], tmp[PATH_MAX + 16];
    char *payload;
    size_t len;
    if (tf_facts_save(f, &payload, &len) < 0)
        return;
    if (len + sizeof(header) > CACHE_MAX) {
        free(payload);
        return;
    }
    header h = {.len = len};
    memcpy(h.magic, CACHE_MAGIC, 8);
    h.key[0] = key->h[0];
    h.key[1] = key->h[1];
    tf_hash128(payload, len, key->h[0], h.sum);
    entry_path(dir, key, sub, sizeof sub, true);
    entry_path(dir, key, path, sizeof path, false);
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = -1;
    if ((mkdir(sub, 0700) == 0 || errno == EEXIST) && (fd = mkstemp(tmp)) >= 0) {
        bool ok =
            write(fd, &h, sizeof h) == (ssize_t)sizeof h && write(fd, payload, len) == (ssize_t)len;
        ok &= close(fd) == 0;
        if (!ok || rename(tmp, path) < 0)
            unlink(tmp);
    }
    free(payload);
}
