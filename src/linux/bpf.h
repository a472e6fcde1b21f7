/* bpf: a small builder of classic BPF programs for seccomp filters.
 * Jumps of any length; a program that outgrows its buffer is an error, never truncated. */
#ifndef TESTFENCE_BPF_H
#define TESTFENCE_BPF_H

#include <linux/filter.h>
#include <stdbool.h>
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

#endif
