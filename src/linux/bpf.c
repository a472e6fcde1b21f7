#include "bpf.h"

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
