/* Unit tests for src/linux/bpf.c: a branch over more than 255 instructions still lands where
 * it should (a conditional jump's offset is 8 bits; the builder must not truncate it), and the
 * search over cases returns each case's value and the default for every other number. */
#include "check.h"
#include "linux/bpf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* In a child: install B, then getppid must fail with EXDEV and getpid must work. */
static int run_filter(struct bpf *b)
{
    pid_t pid = fork();
    if (pid == 0) {
        struct sock_fprog prog = {.len = (unsigned short)b->n, .filter = b->f};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
            prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
            _exit(2);
        long a = syscall(SYS_getppid);
        int e = errno;
        long p = syscall(SYS_getpid);
        _exit(a == -1 && e == EXDEV && p > 0 ? 0 : 1);
    }
    int st;
    return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* "if nr == getppid jump over LEN instructions to return EXDEV, else allow", as the guard
 * jumps from each architecture's table to the shared ioctl block. */
static void jump_of(struct bpf *b, unsigned len)
{
    b->n = 0;
    b->overflow = false;
    bpf_load(b, offsetof(struct seccomp_data, nr));
    unsigned at = bpf_jump_if(b, SYS_getppid);
    unsigned start = b->n;
    for (unsigned i = 0; b->n + 3 <= start + len; i++)
        bpf_ret_if(b, 100000 + i, SECCOMP_RET_ERRNO | EIO); /* never taken */
    while (b->n < start + len - 1)
        bpf_load(b, offsetof(struct seccomp_data, nr));
    bpf_ret(b, SECCOMP_RET_ALLOW);
    bpf_land(b, at);
    bpf_ret(b, SECCOMP_RET_ERRNO | EXDEV);
    CHECK(!b->overflow && b->n == start + len + 1);
}

/* Run B on a seccomp_data whose nr is NR, as the kernel would (the instructions the builder
 * emits: load word, JEQ/JGE K, JA, RET K). -1 for anything else or a fall off the end. */
static long interpret(const struct bpf *b, uint32_t nr)
{
    struct seccomp_data d = {.nr = (int)nr};
    uint32_t a = 0;
    for (unsigned pc = 0; pc < b->n; pc++) {
        const struct sock_filter *f = &b->f[pc];
        if (f->code == (BPF_LD | BPF_W | BPF_ABS) && f->k + 4 <= sizeof d)
            memcpy(&a, (const char *)&d + f->k, 4);
        else if (f->code == (BPF_JMP | BPF_JEQ | BPF_K))
            pc += a == f->k ? f->jt : f->jf;
        else if (f->code == (BPF_JMP | BPF_JGE | BPF_K))
            pc += a >= f->k ? f->jt : f->jf;
        else if (f->code == (BPF_JMP | BPF_JA))
            pc += f->k;
        else if (f->code == (BPF_RET | BPF_K))
            return f->k;
        else
            return -1;
    }
    return -1;
}

/* The jump lands where it should over any distance: as interpreted here for every length,
 * and by the kernel for a few. */
static void jumps(void)
{
    static struct bpf b;
    for (unsigned len = 1; len < 1200; len++) {
        jump_of(&b, len);
        if (interpret(&b, SYS_getppid) != (SECCOMP_RET_ERRNO | EXDEV) ||
            interpret(&b, SYS_getpid) != SECCOMP_RET_ALLOW) {
            fprintf(stderr, "a jump over %u instructions went astray\n", len);
            CHECK(0);
            return;
        }
    }
    unsigned lens[] = {10, 255, 256, 300, 1000};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        jump_of(&b, lens[i]);
        CHECK(run_filter(&b) == 0);
    }
}

/* A small deterministic generator: the same sets at every run. */
static uint32_t next(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

static long expected(const struct bpf_case *c, size_t n, uint32_t nr, uint32_t dflt)
{
    for (size_t i = 0; i < n; i++)
        if (c[i].k == nr)
            return c[i].ret;
    return dflt;
}

/* N cases of K below 600 (each added twice: the first RET given must win), three RETs. */
static size_t some_cases(struct bpf_case *c, size_t n, uint32_t *seed)
{
    static const uint32_t rets[] = {SECCOMP_RET_ERRNO | EPERM, SECCOMP_RET_USER_NOTIF,
                                    SECCOMP_RET_ERRNO | ENOSYS};
    size_t got = 0;
    while (got < n) {
        uint32_t k = next(seed) % 600;
        bpf_case_add(c, &got, k, rets[next(seed) % 3]);
        bpf_case_add(c, &got, k, SECCOMP_RET_KILL_PROCESS); /* never wins */
    }
    for (size_t i = 1; i < got; i++)
        CHECK(c[i - 1].k < c[i].k);
    return got;
}

/* Every number from 0 to 700 gets its case's return or the default, for sets of 0 to 60. */
static void cases(void)
{
    static struct bpf b;
    struct bpf_case c[64];
    uint32_t seed = 1;
    for (size_t n = 0; n <= 60; n++) {
        for (int round = 0; round < 5; round++) {
            size_t got = some_cases(c, n, &seed);
            b.n = 0;
            b.overflow = false;
            bpf_load(&b, offsetof(struct seccomp_data, nr));
            bpf_ret_cases(&b, c, got, SECCOMP_RET_ALLOW);
            CHECK(!b.overflow);
            for (uint32_t nr = 0; nr <= 700; nr++) {
                if (interpret(&b, nr) != expected(c, got, nr, SECCOMP_RET_ALLOW)) {
                    fprintf(stderr, "%zu cases: number %u got the wrong return\n", got, nr);
                    CHECK(0);
                    return;
                }
            }
        }
    }
    /* And as the kernel runs it: getppid among 40 other cases is refused, getpid runs. */
    struct bpf_case k[41];
    size_t nk = 0;
    bpf_case_add(k, &nk, SYS_getppid, SECCOMP_RET_ERRNO | EXDEV);
    for (uint32_t i = 0; i < 40; i++)
        if (200 + i != SYS_getpid)
            bpf_case_add(k, &nk, 200 + i, SECCOMP_RET_ERRNO | EIO);
    b.n = 0;
    bpf_load(&b, offsetof(struct seccomp_data, nr));
    bpf_ret_cases(&b, k, nk, SECCOMP_RET_ALLOW);
    CHECK(run_filter(&b) == 0);
}

/* "one of" returns RET for each listed value, the default for the rest. */
static void any_of(void)
{
    static struct bpf b;
    uint32_t ks[200];
    for (uint32_t i = 0; i < 200; i++)
        ks[i] = 3 * i + 1;
    b.n = 0;
    b.overflow = false;
    bpf_load(&b, offsetof(struct seccomp_data, nr));
    bpf_ret_any(&b, ks, 200, SECCOMP_RET_ERRNO | EXDEV, SECCOMP_RET_ALLOW);
    CHECK(!b.overflow);
    for (uint32_t nr = 0; nr < 700; nr++) {
        long want = nr % 3 == 1 && nr < 600 ? (long)(SECCOMP_RET_ERRNO | EXDEV) : SECCOMP_RET_ALLOW;
        CHECK(interpret(&b, nr) == want);
    }
    b.n = 0;
    bpf_ret_any(&b, ks, 256, SECCOMP_RET_ALLOW, SECCOMP_RET_ALLOW); /* beyond a jump's reach */
    CHECK(b.overflow);
}

int main(void)
{
    jumps();
    cases();
    any_of();
    /* Too many instructions: marked, never cut short. */
    static struct bpf big;
    for (unsigned i = 0; i < BPF_MAXINSNS + 1; i++)
        bpf_ret(&big, SECCOMP_RET_ALLOW);
    CHECK(big.overflow && big.n == BPF_MAXINSNS);
    return check_done("test_bpf");
}
