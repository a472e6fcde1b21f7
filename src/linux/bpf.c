#include "bpf.h"

#include <string.h>

void bpf_emit(struct bpf *b, struct sock_filter s)
{
    if (b->n < BPF_MAXINSNS)
        b->f[b->n++] = s;
    else
        b->overflow = true;
}

void bpf_load(struct bpf *b, uint32_t offset)
{
    bpf_emit(b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset));
}

void bpf_ret(struct bpf *b, uint32_t ret)
{
    bpf_emit(b, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ret));
}

void bpf_ret_if(struct bpf *b, uint32_t k, uint32_t ret)
{
    bpf_emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 1));
    bpf_ret(b, ret);
}

void bpf_branch(struct bpf *b, uint32_t k, const struct bpf *block)
{
    b->overflow |= block->overflow;
    if (block->n <= 255) {
        bpf_emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, block->n));
    } else {
        /* Equal: step over the long jump into the block; else take it past the block. */
        bpf_emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 1, 0));
        bpf_emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, block->n, 0, 0));
    }
    for (unsigned i = 0; i < block->n; i++)
        bpf_emit(b, block->f[i]);
}

/* Set the unconditional jump at AT to land on the next instruction to be emitted. */
static void land_here(struct bpf *b, unsigned at)
{
    if (at < b->n)
        b->f[at].k = b->n - at - 1;
}

void bpf_lookup(struct bpf *b, const struct bpf_case *cases, size_t n)
{
    if (n <= 3) {
        for (size_t i = 0; i < n; i++)
            bpf_ret_if(b, cases[i].key, cases[i].ret);
        return;
    }
    /* A >= the middle key: jump to the upper half; else the lower half, then past the upper.
     * Unconditional jumps reach anywhere; a conditional one only 255 instructions. */
    size_t mid = n / 2;
    bpf_emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, cases[mid].key, 0, 1));
    unsigned to_upper = b->n;
    bpf_emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0));
    bpf_lookup(b, cases, mid);
    unsigned past_upper = b->n;
    bpf_emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0));
    land_here(b, to_upper);
    bpf_lookup(b, cases + mid, n - mid);
    land_here(b, past_upper);
}

size_t bpf_case_add(struct bpf_case *cases, size_t n, struct bpf_case c)
{
    size_t i = n;
    while (i > 0 && cases[i - 1].key > c.key)
        i--;
    if (i > 0 && cases[i - 1].key == c.key)
        return n;
    memmove(cases + i + 1, cases + i, (n - i) * sizeof *cases);
    cases[i] = c;
    return n + 1;
}
