/* Unit tests for src/linux/bpf.c: a branch over more than 255 instructions still lands where
 * it should (a conditional jump's offset is 8 bits; the builder must not truncate it). */
#include "check.h"
#include "linux/bpf.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <stddef.h>
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

int main(void)
{
    CHECK(branch_of(10) == 0);
    CHECK(branch_of(255) == 0);
    CHECK(branch_of(256) == 0);
    CHECK(branch_of(300) == 0);
    CHECK(branch_of(1000) == 0);
    /* Too many instructions: marked, never cut short. */
    static struct bpf big;
    for (unsigned i = 0; i < BPF_MAXINSNS + 1; i++)
        bpf_ret(&big, SECCOMP_RET_ALLOW);
    CHECK(big.overflow && big.n == BPF_MAXINSNS);
    return check_done("test_bpf");
}
