/* bpf: a small builder of classic BPF programs for seccomp filters.
 * Jumps of any length; a program that outgrows its buffer is an error, never truncated. */
#ifndef TESTFENCE_BPF_H
#define TESTFENCE_BPF_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf {
    struct sock_filter f[BPF_MAXINSNS];
    unsigned n;
    bool overflow; /* an instruction did not fit: the program must not be used */
};

/* Append one instruction. */
void bpf_emit(struct bpf *b, struct sock_filter s);

/* Load the 32-bit word at OFFSET of struct seccomp_data into A. */
void bpf_load(struct bpf *b, uint32_t offset);

/* "if A == K return RET". */
void bpf_ret_if(struct bpf *b, uint32_t k, uint32_t ret);

/* "return RET". */
void bpf_ret(struct bpf *b, uint32_t ret);

/* "if A == K run BLOCK (which ends in a return), else go on after it". A conditional jump
 * reaches 255 instructions; a longer BLOCK is skipped with an unconditional jump. */
void bpf_branch(struct bpf *b, uint32_t k, const struct bpf *block);

/* One case of a lookup: "return RET when A == KEY". */
struct bpf_case {
    uint32_t key;
    uint32_t ret;
};

/* "if A is the key of a case of CASES (N, keys ascending and distinct) return its RET, else
 * go on after": a binary search, so a call is judged in log2(N) steps, not N, and the
 * kernel's own pass over every syscall number when the filter is installed stays short. */
void bpf_lookup(struct bpf *b, const struct bpf_case *cases, size_t n);

/* Put case C into the N cases of CASES (room for one more), keeping the keys ascending; a key
 * already there keeps its first RET. Returns the new count. */
size_t bpf_case_add(struct bpf_case *cases, size_t n, struct bpf_case c);

#endif
