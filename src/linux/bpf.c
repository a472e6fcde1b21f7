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

unsigned bpf_jump_if(struct bpf *b, uint32_t k)
{
    /* Equal: step onto the unconditional jump; else over it. */
    bpf_emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 1));
    unsigned at = b->n;
    bpf_emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0));
    return at;
}

void bpf_land(struct bpf *b, unsigned at)
{
    if (at < b->n) /* else the jump was never emitted: overflow says so */
        b->f[at].k = b->n - at - 1;
}
