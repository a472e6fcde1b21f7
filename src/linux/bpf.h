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

/* "if A == K jump to a place not emitted yet": returns the jump's index, for bpf_land once
 * the place is reached. Any distance (a conditional jump alone reaches 255 instructions). */
unsigned bpf_jump_if(struct bpf *b, uint32_t k);

/* The jump at AT (from bpf_jump_if) lands on the next instruction emitted. */
void bpf_land(struct bpf *b, unsigned at);

/* A value of A and what the program returns for it. */
struct bpf_case {
    uint32_t k;
    uint32_t ret;
};

/* "return the RET of the case whose K equals A, else DFLT", as a binary search over N cases
 * sorted by K without repeats. Not a chain of compares: when a filter is installed the kernel
 * runs it for every syscall number of each architecture (its per-number cache), so the time
 * to install grows with the compares a number walks through, a few here for any number. */
void bpf_ret_cases(struct bpf *b, const struct bpf_case *cases, size_t n, uint32_t dflt);

/* "return RET if A is one of the N values KS (at most 255), else DFLT": one compare each. */
void bpf_ret_any(struct bpf *b, const uint32_t *ks, size_t n, uint32_t ret, uint32_t dflt);

/* Put case {K, RET} into the sorted CASES of *N (room for one more), unless K is there
 * already: the first case given for a value wins. */
void bpf_case_add(struct bpf_case *cases, size_t *n, uint32_t k, uint32_t ret);

#endif
