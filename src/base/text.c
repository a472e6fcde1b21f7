#include "text.h"

#include <stdint.h>
#include <string.h>

size_t tf_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0], cp, min;
    size_t k;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0)
        k = 1, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0)
        k = 2, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0)
        k = 3, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    if (n <= k)
        return 0;
    for (size_t j = 1; j <= k; j++) {
        if ((s[j] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[j] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return k + 1;
}

size_t tf_utf8_put(char out[4], unsigned long cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    if (cp < 0x110000) {
        out[0] = (char)(0xF0 | cp >> 18);
        out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[3] = (char)(0x80 | (cp & 0x3F));
        return 4;
    }
    return 0;
}

int tf_hex_digit(int c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

int tf_hex_read(const char *s, size_t avail, size_t digits, unsigned long *v)
{
    *v = 0;
    if (avail < digits)
        return -1;
    for (size_t i = 0; i < digits; i++) {
        int d = tf_hex_digit((unsigned char)s[i]);
        if (d < 0)
            return -1;
        *v = *v << 4 | (unsigned long)d;
    }
    return 0;
}

/* The escaped form of the character at S into PIECE; returns its length and sets *adv. */
static size_t escape_char(const unsigned char *s, char piece[8], size_t *adv)
{
    unsigned char c = s[0];
    *adv = 1;
    const char *two = c == '"'    ? "\\\""
                      : c == '\\' ? "\\\\"
                      : c == '\n' ? "\\n"
                      : c == '\r' ? "\\r"
                      : c == '\t' ? "\\t"
                                  : NULL;
    if (two) {
        memcpy(piece, two, 2);
        return 2;
    }
    if (c < 0x20 || c == 0x7f)
        return (size_t)snprintf(piece, 8, "\\u%04x", c);
    size_t n = tf_utf8_len(s, SIZE_MAX);
    if (n == 0) {
        memcpy(piece, "\\ufffd", 6);
        return 6;
    }
    memcpy(piece, s, n);
    *adv = n;
    return n;
}

size_t tf_json_escape(char *out, size_t cap, const char *s, bool *cut)
{
    size_t k = 0;
    out[k++] = '"';
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        char piece[8];
        size_t adv, pl = escape_char(p, piece, &adv);
        if (k + pl + 2 > cap) { /* room for the closing quote and the NUL */
            *cut = true;
            break;
        }
        memcpy(out + k, piece, pl);
        k += pl;
        p += adv;
    }
    out[k++] = '"';
    out[k] = '\0';
    return k;
}

void tf_gh_escape(FILE *f, const char *s, bool property)
{
    for (; *s; s++) {
        if (*s == '%')
            fputs("%25", f);
        else if (*s == '\r')
            fputs("%0D", f);
        else if (*s == '\n')
            fputs("%0A", f);
        else if (property && *s == ':')
            fputs("%3A", f);
        else if (property && *s == ',')
            fputs("%2C", f);
        else
            fputc(*s, f);
    }
}

/* Where a piece of S (LEFT bytes) ends, at most PIECE bytes in: before a byte that starts
 * a character, or after four continuation bytes in a row (no UTF-8 sequence holds four), so
 * the escaper reads each piece as it would read S whole. */
static size_t piece_end(const char *s, size_t left, size_t piece)
{
    if (left <= piece)
        return left;
    for (size_t n = piece; n > piece - 4; n--)
        if (((unsigned char)s[n] & 0xC0) != 0x80)
            return n;
    return piece;
}

void tf_json_write(FILE *out, const char *s)
{
    enum { PIECE = 1024 };
    char piece[PIECE + 1], buf[PIECE * 6 + 3]; /* a byte escapes to 6 at most (\ufffd) */
    if (!s) {
        fputs("null", out);
        return;
    }
    size_t left = strlen(s);
    fputc('"', out);
    while (left) {
        size_t n = piece_end(s, left, PIECE);
        memcpy(piece, s, n);
        piece[n] = '\0';
        bool cut = false;
        size_t len = tf_json_escape(buf, sizeof buf, piece, &cut);
        fwrite(buf + 1, 1, len - 2, out); /* without the piece's own quotes */
        s += n;
        left -= n;
    }
    fputc('"', out);
}

void tf_uri_write(FILE *out, const char *prefix, const char *path)
{
    fputc('"', out);
    fputs(prefix, out);
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p))
            fputc(*p, out);
        else
            fprintf(out, "%%%02X", *p);
    }
    fputc('"', out);
}

bool tf_drive_path(const char *path)
{
    return ((path[0] >= 'a' && path[0] <= 'z') || (path[0] >= 'A' && path[0] <= 'Z')) &&
           path[1] == ':' && path[2] == '/';
}

void tf_file_uri_write(FILE *out, const char *path)
{
    char drive[16];
    if (tf_drive_path(path)) {
        snprintf(drive, sizeof drive, "file:///%c:", path[0]);
        tf_uri_write(out, drive, path + 2);
    } else {
        tf_uri_write(out, "file://", path);
    }
}
