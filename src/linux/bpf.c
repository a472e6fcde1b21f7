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

/* Below this many cases a chain of compares is as short as another split. */
enum { CHAIN_MAX = 4 };

/* The cases as a chain: each equal K jumps to its return, emitted once per distinct RET
 * after the default's (a shorter program is quicker to install, too). */
static void ret_chain(struct bpf *b, const struct bpf_case *cases, size_t n, uint32_t dflt)
{
    uint32_t rets[CHAIN_MAX];
    size_t nrets = 0, which[CHAIN_MAX];
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < nrets && rets[j] != cases[i].ret)
            j++;
        if (j == nrets)
            rets[nrets++] = cases[i].ret;
        which[i] = j;
    }
    for (size_t i = 0; i < n; i++) /* to the return of RETS[WHICH[I]], past the default */
        bpf_emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, cases[i].k,
                                                 (uint8_t)(n - i + which[i]), 0));
    bpf_ret(b, dflt);
    for (size_t j = 0; j < nrets; j++)
        bpf_ret(b, rets[j]);
}

void bpf_ret_cases(struct bpf *b, const struct bpf_case *cases, size_t n, uint32_t dflt)
{
    if (n <= CHAIN_MAX) {
        ret_chain(b, cases, n, dflt);
        return;
    }
    size_t mid = n / 2;
    /* A >= the middle K: the upper half, emitted next; else jump over it to the lower. */
    unsigned at = b->n;
    bpf_emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, cases[mid].k, 0, 0));
    bpf_ret_cases(b, cases + mid, n - mid, dflt);
    unsigned over = b->n - at - 1;
    if (over > 255)
        b->overflow = true; /* a conditional jump reaches 255: too many cases for one tree */
    else if (at < b->n)
        b->f[at].jf = (uint8_t)over;
    bpf_ret_cases(b, cases, mid, dflt);
}

void bpf_ret_any(struct bpf *b, const uint32_t *ks, size_t n, uint32_t ret, uint32_t dflt)
{
    if (n > 255) { /* a conditional jump's reach */
        b->overflow = true;
        return;
    }
    for (size_t i = 0; i < n; i++) /* to the RET after the default's */
        bpf_emit(
            b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ks[i], (uint8_t)(n - i), 0));
    bpf_ret(b, dflt);
    bpf_ret(b, ret);
}

void bpf_case_add(struct bpf_case *cases, size_t *n, uint32_t k, uint32_t ret)
{
    size_t i = 0;
    while (i < *n && cases[i].k < k)
        i++;
    if (i < *n && cases[i].k == k)
        return;
    memmove(cases + i + 1, cases + i, (*n - i) * sizeof *cases);
    cases[i] = (struct bpf_case){k, ret};
    (*n)++;
}
