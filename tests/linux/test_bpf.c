/* Unit tests for src/linux/bpf.c: a branch over more than 255 instructions still lands where
 * it should (a conditional jump's offset is 8 bits; the builder must not truncate it); a
 * lookup returns each key's answer and lets every other value through. */
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

/* "if nr == getppid: BLOCK (LEN instructions, ending in EXDEV) else allow". */
static int branch_of(unsigned len)
{
    static struct bpf b, block;
    b.n = block.n = 0;
    b.overflow = block.overflow = false;
    for (unsigned i = 0; block.n + 3 <= len; i++)
        bpf_ret_if(&block, 100000 + i, SECCOMP_RET_ERRNO | EIO); /* never taken */
    while (block.n + 1 < len)
        bpf_load(&block, offsetof(struct seccomp_data, nr));
    bpf_ret(&block, SECCOMP_RET_ERRNO | EXDEV);
    bpf_load(&b, offsetof(struct seccomp_data, nr));
    bpf_branch(&b, SYS_getppid, &block);
    bpf_ret(&b, SECCOMP_RET_ALLOW);
    CHECK(!b.overflow && block.n == len);
    return run_filter(&b);
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

/* N cases with keys 10, 20, ...: each key gives its own answer, every other value (below,
 * between, above) the fall-through's; in far fewer steps than N for a large N. */
static void lookup_of(size_t n)
{
    static struct bpf b;
    static struct bpf_case cases[600];
    size_t k = 0;
    b.n = 0;
    b.overflow = false;
    for (size_t i = n; i-- > 0;) /* added out of order, one twice: the first answer stays */
        k = bpf_case_add(cases, k, (struct bpf_case){(uint32_t)(10 * i + 10), (uint32_t)i});
    if (n)
        k = bpf_case_add(cases, k, (struct bpf_case){10, 999});
    CHECK(k == n);
    for (size_t i = 1; i < k; i++)
        CHECK(cases[i - 1].key < cases[i].key);
    bpf_load(&b, offsetof(struct seccomp_data, nr));
    bpf_lookup(&b, cases, k);
    bpf_ret(&b, 0x7fff0000u);
    CHECK(!b.overflow);
    for (uint32_t v = 0; v <= 10 * n + 20; v++) {
        long want = v % 10 == 0 && v >= 10 && v <= 10 * n ? (long)(v / 10 - 1) : 0x7fff0000L;
        if (interpret(&b, v) != want) {
            fprintf(stderr, "lookup of %zu: %u gave %ld, not %ld\n", n, v, interpret(&b, v), want);
            CHECK(0);
            return;
        }
    }
}

/* The kernel agrees: getppid looked up among many gives EXDEV, getpid runs. */
static int kernel_lookup(void)
{
    static struct bpf b;
    static struct bpf_case cases[200];
    size_t n = 0;
    b.n = 0;
    b.overflow = false;
    for (uint32_t i = 0; i < 150; i++) /* numbers no syscall has */
        n = bpf_case_add(cases, n, (struct bpf_case){1000 + i * 3, SECCOMP_RET_ERRNO | EIO});
    n = bpf_case_add(cases, n, (struct bpf_case){SYS_getppid, SECCOMP_RET_ERRNO | EXDEV});
    bpf_load(&b, offsetof(struct seccomp_data, nr));
    bpf_lookup(&b, cases, n);
    bpf_ret(&b, SECCOMP_RET_ALLOW);
    return run_filter(&b);
}

int main(void)
{
    CHECK(branch_of(10) == 0);
    CHECK(branch_of(255) == 0);
    CHECK(branch_of(256) == 0);
    CHECK(branch_of(300) == 0);
    CHECK(branch_of(1000) == 0);
    size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 50, 127, 128, 500};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        lookup_of(sizes[i]);
    CHECK(kernel_lookup() == 0);
    /* Too many instructions: marked, never cut short. */
    static struct bpf big;
    for (unsigned i = 0; i < BPF_MAXINSNS + 1; i++)
        bpf_ret(&big, SECCOMP_RET_ALLOW);
    CHECK(big.overflow && big.n == BPF_MAXINSNS);
    return check_done("test_bpf");
}
