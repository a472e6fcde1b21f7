/* Unit tests for src/linux/bpf.c: a branch over more than 255 instructions still lands where
 * it should (a conditional jump's offset is 8 bits; the builder must not truncate it). */
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

int main(void)
{
    jumps();
    /* Too many instructions: marked, never cut short. */
    static struct bpf big;
    for (unsigned i = 0; i < BPF_MAXINSNS + 1; i++)
        bpf_ret(&big, SECCOMP_RET_ALLOW);
    CHECK(big.overflow && big.n == BPF_MAXINSNS);
    return check_done("test_bpf");
}
