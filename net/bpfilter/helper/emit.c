// SPDX-License-Identifier: GPL-2.0
/*
 * Emitting BPF instructions, with jumps to labels fixed up at the end.
 * As in gen_loader.c, emitting never fails on the spot: the first error
 * sticks in bf_emit.err and bf_resolve() returns it.
 *
 * Conditional jumps have 16 bits of offset: they only go to labels of
 * the same rule. Jumps between rules are gotol, with 32 bits.
 */
#include <errno.h>
#include <stdlib.h>

#include "codegen.h"
#include "emit.h"

struct bf_fixup {
	unsigned int insn;
	int label;
	bool wide;		/* a gotol, with the offset in imm */
};

bool bf_grow(int *err, void **p, unsigned int *cap, unsigned int want,
	     size_t size)
{
	unsigned int n = *cap ? *cap : 64;
	void *q;

	if (want <= *cap)
		return true;
	while (n < want)
		n *= 2;
	q = realloc(*p, (size_t)n * size);
	if (!q) {
		*err = *err ?: -ENOMEM;
		return false;
	}
	*p = q;
	*cap = n;
	return true;
}

void bf_emit(struct bf_emit *e, struct bpf_insn insn)
{
	if (e->err)
		return;
	if (e->len >= BF_MAX_INSNS) {
		e->err = -E2BIG;
		return;
	}
	if (!bf_grow(&e->err, (void **)&e->insns, &e->cap, e->len + 1, sizeof(insn)))
		return;
	e->insns[e->len++] = insn;
}

void bf_emit_ld64(struct bf_emit *e, int reg, __u64 imm)
{
	struct bpf_insn insn[2] = { BPF_LD_IMM64(reg, imm) };

	bf_emit(e, insn[0]);
	bf_emit(e, insn[1]);
}

int bf_new_label(struct bf_emit *e)
{
	if (!bf_grow(&e->err, (void **)&e->labels, &e->labels_cap, e->nlabels + 1,
		     sizeof(*e->labels)))
		return NO_LABEL;
	e->labels[e->nlabels] = -1;
	return e->nlabels++;
}

void bf_bind(struct bf_emit *e, int label)
{
	if (label != NO_LABEL && !e->err)
		e->labels[label] = e->len;
}

static void jump(struct bf_emit *e, struct bpf_insn insn, int label,
		 bool wide)
{
	if (label == NO_LABEL || e->err)
		return;
	if (!bf_grow(&e->err, (void **)&e->fixups, &e->fixups_cap, e->nfixups + 1,
		     sizeof(*e->fixups)))
		return;
	e->fixups[e->nfixups++] = (struct bf_fixup) {
		.insn = e->len, .label = label, .wide = wide,
	};
	bf_emit(e, insn);
}

/* @insn, a conditional jump, goes to @label of the same rule. */
void bf_jmp(struct bf_emit *e, struct bpf_insn insn, int label)
{
	jump(e, insn, label, false);
}

void bf_gotol(struct bf_emit *e, int label)
{
	jump(e, BPF_RAW_INSN(BPF_JMP32 | BPF_JA, 0, 0, 0, 0), label, true);
}

void bf_verdict(struct bf_emit *e, int verdict)
{
	bf_emit(e, BPF_MOV64_IMM(R0, verdict));
	bf_emit(e, BPF_EXIT_INSN());
}

/* Whether a jump emitted since fixup @from goes to @label. */
bool bf_label_used(const struct bf_emit *e, unsigned int from, int label)
{
	unsigned int i;

	for (i = from; i < e->nfixups; i++)
		if (e->fixups[i].label == label)
			return true;
	return false;
}

/* Sets the offset of every jump; -ERANGE if one does not fit. */
int bf_resolve(struct bf_emit *e)
{
	unsigned int i;

	for (i = 0; i < e->nfixups && !e->err; i++) {
		const struct bf_fixup *f = &e->fixups[i];
		long off = (long)e->labels[f->label] - f->insn - 1;

		if (e->labels[f->label] < 0)
			return -EINVAL;
		if (f->wide) {
			e->insns[f->insn].imm = off;
		} else {
			if (off < -32768 || off > 32767)
				return -ERANGE;
			e->insns[f->insn].off = off;
		}
	}
	return e->err;
}

/* Everything but the instructions, which the caller takes. */
void bf_emit_free(struct bf_emit *e)
{
	free(e->labels);
	free(e->fixups);
	e->labels = NULL;
	e->fixups = NULL;
}
