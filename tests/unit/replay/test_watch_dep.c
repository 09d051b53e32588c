// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of quiet stretches (watch_dep.c's dependency analysis beside
 * watch_proof.c's pass): which accesses the pass may call secret, the
 * trace showing nothing that depends on their base, through branches and
 * their directions, system calls, memory flows, undecoded and string
 * instructions.  They were test_watch_proof.c's until it passed 1,000
 * lines; the registers and intervals stay there.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rcv_fixture.h"
#include "wpffix.h"

TestSuite(watch_dep, .init = setup, .fini = teardown);

/*
 * Quiet stretches (watch_chain.c's far windows with watch-unknown skip):
 * an access is secret where its base is a register at the start, or a
 * word read through one before anything stored to it, and the stretch
 * shows nothing in the trace that depends on a value.
 */
static bool secret(const struct rcv_ins *in, size_t n, size_t j)
{
	static const struct wpf_edge nothing;
	struct wpf_out o;
	struct wpf_win *w = run(in, n, &nothing, NULL, &o);
	bool s;

	cr_assert_lt(j, o.nacc);
	cr_assert(!o.acc[j].known);
	s = o.acc[j].secret;
	wpf_out_free(&o);
	wpf_win_free(w);
	return s;
}

Test(watch_dep, quiet_frame)
{
	/* push rbp; mov rbp,rsp; mov [rbp-4],edi; pop rbp */
	struct rcv_ins in[] = {
		INS("\x55"), INS("\x48\x89\xe5"), INS("\x89\x7d\xfc"),
		INS("\x5d"),
	};

	cr_assert(secret(in, 4, 0));
	cr_assert(secret(in, 4, 1));
	cr_assert(secret(in, 4, 2));
}

/*
 * What the trace shows (conditional branches, indirect targets, system
 * calls) makes an access's base known only where the shown value
 * depends on it (watch_dep.c).
 */
Test(watch_dep, quiet_loud)
{
	/* mov [rbp-4],edi; test eax,eax; je +0: a branch on eax */
	struct rcv_ins in[] = {
		INS("\x89\x7d\xfc"), INS("\x85\xc0"), INS("\x74\x00"),
	};
	/* ... test ebp,ebp; je: on rbp */
	struct rcv_ins bp[] = {
		INS("\x89\x7d\xfc"), INS("\x85\xed"), INS("\x74\x00"),
	};
	/* ... mov rax,rbp; add rax,8; cmp rax,16; je: on a value of it */
	struct rcv_ins dv[] = {
		INS("\x89\x7d\xfc"), INS("\x48\x89\xe8"),
		INS("\x48\x83\xc0\x08"), INS("\x48\x83\xf8\x10"),
		INS("\x74\x00"),
	};
	/* ... cmp rax,rcx; je: equal to a register the engine does not
	 * know either, which tells it neither (rcv_back.c)
	 */
	struct rcv_ins dx[] = {
		INS("\x89\x7d\xfc"), INS("\x48\x89\xe8"),
		INS("\x48\x83\xc0\x08"), INS("\x48\x39\xc8"), INS("\x74\x00"),
	};
	/* ... mov ebx,[rbp-8]; cmp ebx,1; je: on a word loaded through it,
	 * which tells nothing of where it lay
	 */
	struct rcv_ins ld[] = {
		INS("\x89\x7d\xfc"), INS("\x8b\x5d\xf8"), INS("\x83\xfb\x01"),
		INS("\x74\x00"),
	};
	/* ... syscall */
	struct rcv_ins sc[] = { INS("\x89\x7d\xfc"), INS("\x0f\x05") };
	/* ... call rax: rax is shown, not rbp */
	struct rcv_ins ic[] = { INS("\x89\x7d\xfc"), INS("\xff\xd0") };
	/* mov [rax],edi; call rax */
	struct rcv_ins ia[] = { INS("\x89\x38"), INS("\xff\xd0") };

	cr_assert(secret(in, 3, 0));
	cr_assert(!secret(bp, 3, 0));
	cr_assert(!secret(dv, 5, 0));
	cr_assert(secret(dx, 5, 0));
	cr_assert(secret(ld, 4, 0));
	cr_assert(secret(ld, 4, 1));
	cr_assert(secret(sc, 2, 0));	/* shows rax alone */
	cr_assert(secret(ic, 2, 0));
	cr_assert(!secret(ia, 2, 0));
}

/* @n instructions (bytes, length) decoded one after the other from
 * 0x401000, or from where @to[i] says (nonzero): where the trace went.
 */
struct at_ins {
	const char *b;
	size_t len;
	uint64_t to;
};

static void lay(const struct at_ins *a, size_t n, struct rcv_ins *in)
{
	uint64_t ip = 0x401000;
	size_t i;

	for (i = 0; i < n; i++) {
		if (a[i].to)
			ip = a[i].to;
		rcv_decode(dec, ip, (const uint8_t *)a[i].b, a[i].len,
			   RP_IC_OTHER, &in[i]);
		in[i].next = ip + in[i].len;
		ip += in[i].len;
	}
}

#define AT(b, to) { b, sizeof(b) - 1, to }

/*
 * @in as an instruction capstone 4 cannot read (rcv_decode.c leaves it
 * so): @flags (RCV_I_BAD and more), every general-purpose register read,
 * none written.
 */
static void undecoded(struct rcv_ins *in, uint8_t flags)
{
	in->id = 0;
	in->flags = flags;
	in->gr = 0xffff;
	memset(in->wcode, 0, sizeof(in->wcode));
}

/* @in as kmovd eax,k0 undecoded: it writes eax and the flags. */
static void kmovd_eax_k0(struct rcv_ins *in)
{
	undecoded(in, RCV_I_BAD);
	in->wcode[RP_REG_RAX] = 4;
	in->fw = 0x8d5;
}

/* Access @j of @n instructions laid out by lay(), cut by @cut (or
 * none): secret?
 */
static bool secret_at(const struct at_ins *a, size_t n, const uint8_t *cut,
		      size_t j)
{
	static const struct wpf_edge nothing;
	struct rcv_ins in[16];
	struct wpf_out o;
	struct wpf_win *w;
	bool s;

	cr_assert_leq(n, 16);
	lay(a, n, in);
	w = run(in, n, &nothing, cut, &o);
	cr_assert_lt(j, o.nacc);
	s = o.acc[j].secret;
	wpf_out_free(&o);
	wpf_win_free(w);
	return s;
}

/*
 * A conditional branch tells the engine the values it tests only where
 * its direction says ZF is set (rcv_back.c): je taken, jne not taken.
 * mov [rbp-4],edi at 0x401000, test ebp,ebp at 0x401003, the branch at
 * 0x401005 (to 0x401017 when taken), then nop.
 */
Test(watch_dep, quiet_directions)
{
	/* The compare and the branch, where the flow went after it (the
	 * nop's address: 0 straight on), and whether the store is secret.
	 */
	static const struct {
		struct at_ins cmp, jcc;
		uint64_t to;
		bool secret;
	} rows[] = {
		/* test ebp,ebp; je and jne, taken and not */
		{ AT("\x85\xed", 0), AT("\x74\x10", 0), 0x401017, false },
		{ AT("\x85\xed", 0), AT("\x74\x10", 0), 0, true },
		{ AT("\x85\xed", 0), AT("\x75\x10", 0), 0x401017, true },
		{ AT("\x85\xed", 0), AT("\x75\x10", 0), 0, false },
		/* cmp rbp,rcx; jb and ja, either way: flags the engine
		 * computes no value back from
		 */
		{ AT("\x48\x39\xcd", 0), AT("\x72\x10", 0), 0x401018, true },
		{ AT("\x48\x39\xcd", 0), AT("\x77\x10", 0), 0, true },
		/* mov rcx,rbp; jrcxz, either way: rcx is shown */
		{ AT("\x48\x89\xe9", 0), AT("\xe3\x10", 0), 0, false },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct at_ins a[] = {
			AT("\x89\x7d\xfc", 0), rows[i].cmp, rows[i].jcc,
			AT("\x90", rows[i].to),
		};

		cr_assert_eq(secret_at(a, 4, NULL, 0), rows[i].secret,
			     "row %zu", i);
	}
}

/* mov [rax],edi; syscall: a system call shows rax (its number). */
Test(watch_dep, quiet_syscall)
{
	struct rcv_ins rx[] = { INS("\x89\x38"), INS("\x0f\x05") };
	/* mov [rbp-4],edi; mov eax,1; syscall (write): its kernel store,
	 * which the engine never knows, is as secret; rbp is not shown
	 */
	struct rcv_ins wr[] = {
		INS("\x89\x7d\xfc"), INS("\xb8\x01\x00\x00\x00"),
		INS("\x0f\x05"),
	};
	/* the same with read (0): its store's address is rsi's */
	struct rcv_ins rd[] = {
		INS("\x89\x7d\xfc"), INS("\xb8\x00\x00\x00\x00"),
		INS("\x0f\x05"),
	};

	cr_assert(!secret(rx, 2, 0));
	cr_assert(secret(wr, 3, 0));
	cr_assert(secret(wr, 3, 1));
	cr_assert(secret(rd, 3, 0));
	cr_assert(!secret(rd, 3, 1));
}

/*
 * Instructions capstone 4 cannot read (rcv_decode.c): on vector and mask
 * registers they read no general-purpose register; the one they write
 * is a new value.  With memory (an EVEX load) the engine starts again
 * after it where the flow went straight on (cut 2): the registers there
 * are secret as at the start, its accesses are never known to it; where
 * a signal or a gap may follow (cut 1) nothing is secret.
 */
Test(watch_dep, quiet_evex)
{
	/* mov [rbp-4],edi; (kmovd eax,k0); test eax,eax; je taken;
	 * mov [rax],edi
	 */
	static const struct at_ins kv[] = {
		AT("\x89\x7d\xfc", 0), AT("\x90", 0), AT("\x85\xc0", 0),
		AT("\x74\x10", 0), AT("\x89\x38", 0x401016),
	};
	/* mov [rbp-4],edi; (vpcmpeqb k0,ymm16,[rdi]); mov [rbp-8],esi;
	 * test ebp,ebp; je taken; mov [rbp-12],edx
	 */
	static const struct at_ins ld[] = {
		AT("\x89\x7d\xfc", 0), AT("\x90", 0), AT("\x89\x75\xf8", 0),
		AT("\x85\xed", 0), AT("\x74\x10", 0),
		AT("\x89\x55\xf4", 0x40101a),
	};
	static const uint8_t straight[6] = { 0, 2 }, signal[6] = { 0, 1 };
	struct rcv_ins in[6];
	struct wpf_out o;
	struct wpf_win *w;
	static const struct wpf_edge nothing;

	lay(kv, 5, in);
	kmovd_eax_k0(&in[1]);
	w = run(in, 5, &nothing, NULL, &o);
	cr_assert_eq(o.nacc, 2);
	cr_assert(o.acc[0].secret);	/* eax tells nothing of rbp */
	cr_assert(!o.acc[1].secret);	/* rax: written by it, shown */
	wpf_out_free(&o);
	wpf_win_free(w);

	lay(ld, 6, in);
	undecoded(&in[1], RCV_I_BAD | RCV_I_BARRIER | RCV_I_MEMBAR);
	w = run(in, 6, &nothing, straight, &o);
	cr_assert_eq(o.nacc, 5);
	cr_assert(o.acc[0].secret);	/* before: rbp not shown */
	cr_assert(o.acc[1].secret && !o.acc[1].known);	/* its read */
	cr_assert(o.acc[2].secret && !o.acc[2].known);	/* its write */
	cr_assert(!o.acc[4].secret);	/* after: rbp shown (je) */
	wpf_out_free(&o);
	wpf_win_free(w);
	/* Without the branch, the new rbp is secret too. */
	w = run(in, 3, &nothing, straight, &o);
	cr_assert(o.acc[3].secret);
	wpf_out_free(&o);
	wpf_win_free(w);
	w = run(in, 3, &nothing, signal, &o);
	cr_assert(!o.acc[0].secret && !o.acc[3].secret);
	wpf_out_free(&o);
	wpf_win_free(w);
}

/*
 * String instructions: from rdi (and rsi), rcx times, up or down by the
 * direction flag, which the engine knows in a window computed on its own
 * only after cld or std (rcv_access.c's str_range()).
 */
Test(watch_dep, quiet_string)
{
	/* mov edi,0x1000; rep stosq: not known (no direction flag) */
	struct rcv_ins nd[] = {
		INS("\xbf\x00\x10\x00\x00"), INS("\xf3\x48\xab"),
	};
	/* cld; mov edi,0x1000; rep stosq: the engine may know it */
	struct rcv_ins cd[] = {
		INS("\xfc"), INS("\xbf\x00\x10\x00\x00"),
		INS("\xf3\x48\xab"),
	};
	/* cld; rep stosq: from rdi at the start, not shown */
	struct rcv_ins cs[] = { INS("\xfc"), INS("\xf3\x48\xab") };
	/* mov rbx,rdi; xor eax,eax; rep stosq; mov rax,[rbx];
	 * mov [rax],edi: the word at rbx may be what it stored, a constant,
	 * not the start's
	 */
	struct rcv_ins lw[] = {
		INS("\x48\x89\xfb"), INS("\x31\xc0"), INS("\xf3\x48\xab"),
		INS("\x48\x8b\x03"), INS("\x89\x38"),
	};
	/* the same without the xor: what it stored is rax at the start,
	 * which the engine does not know either (nothing shows it; test
	 * rdx,rdx; je after it for the analysis to run)
	 */
	struct rcv_ins lr[] = {
		INS("\x48\x89\xfb"), INS("\xf3\x48\xab"),
		INS("\x48\x8b\x03"), INS("\x89\x38"), INS("\x48\x85\xd2"),
		INS("\x74\x00"),
	};
	/* cld; rep movsb; test rdi,rdi; je (at 0x401000: shown) */
	struct rcv_ins mv[] = {
		INS("\xfc"), INS("\xf3\xa4"), INS("\x48\x85\xff"),
		INS("\x74\x00"),
	};

	cr_assert(secret(nd, 2, 0));
	cr_assert(!secret(cd, 3, 0));
	cr_assert(secret(cs, 2, 0));
	cr_assert(!secret(lw, 5, 2));
	cr_assert(secret(lr, 6, 2));
	cr_assert(!secret(mv, 4, 0));	/* rsi: rdi after depends on rcx */
	cr_assert(!secret(mv, 4, 1));
}

/* A shown value that memory carried from a base. */
Test(watch_dep, quiet_memory)
{
	/* lea rax,[rbp-8]; mov [rsp],rax; mov rbx,[rsp]; cmp rbx,1; je;
	 * mov [rbp-4],edi: rbp through a stack slot
	 */
	struct rcv_ins sl[] = {
		INS("\x48\x8d\x45\xf8"), INS("\x48\x89\x04\x24"),
		INS("\x48\x8b\x1c\x24"), INS("\x48\x83\xfb\x01"),
		INS("\x74\x00"), INS("\x89\x7d\xfc"),
	};
	/* mov [rdi+8],rbp; mov rax,[rdi+8]; test rax,rax; je;
	 * mov [rbp-4],edi: through a word of the same base, rdi unknown
	 */
	struct rcv_ins sb[] = {
		INS("\x48\x89\x6f\x08"), INS("\x48\x8b\x47\x08"),
		INS("\x48\x85\xc0"), INS("\x74\x00"), INS("\x89\x7d\xfc"),
	};
	/* mov [rdi],rbp; mov rax,[rsi]; test rax,rax; je; mov [rbp-4],edi:
	 * rsi and rdi unknown, so no one can pair the store and the load
	 */
	struct rcv_ins xb[] = {
		INS("\x48\x89\x2f"), INS("\x48\x8b\x06"), INS("\x48\x85\xc0"),
		INS("\x74\x00"), INS("\x89\x7d\xfc"),
	};
	/* mov [rdi],rbp; mov rax,[0x1000]; test rax,rax; je; test rdi,rdi;
	 * je; mov [rbp-4],edi: both addresses may be known, the load may
	 * read what the store left
	 */
	struct rcv_ins kb[] = {
		INS("\x48\x89\x2f"), INS("\x48\x8b\x04\x25\x00\x10\x00\x00"),
		INS("\x48\x85\xc0"), INS("\x74\x00"), INS("\x48\x85\xff"),
		INS("\x74\x00"), INS("\x89\x7d\xfc"),
	};
	/* the same with the load before the store: it cannot */
	struct rcv_ins kf[] = {
		INS("\x48\x8b\x04\x25\x00\x10\x00\x00"), INS("\x48\x85\xc0"),
		INS("\x74\x00"), INS("\x48\x89\x2f"), INS("\x48\x85\xff"),
		INS("\x74\x00"), INS("\x89\x7d\xfc"),
	};

	/* mov [rax],edi; mov al,[rdi]; cmp rax,1; je: rax's upper bits
	 * stay, so the branch shows them
	 */
	struct rcv_ins pw[] = {
		INS("\x89\x38"), INS("\x8a\x07"), INS("\x48\x83\xf8\x01"),
		INS("\x74\x00"),
	};
	/* the same with mov eax,[rdi], which writes all of rax */
	struct rcv_ins fw[] = {
		INS("\x89\x38"), INS("\x8b\x07"), INS("\x48\x83\xf8\x01"),
		INS("\x74\x00"),
	};

	cr_assert(!secret(pw, 4, 0));
	cr_assert(secret(fw, 4, 0));
	cr_assert(secret(sl, 6, 0));	/* [rsp]: rsp is not shown */
	cr_assert(!secret(sl, 6, 2));
	cr_assert(secret(sb, 5, 0));
	cr_assert(!secret(sb, 5, 2));
	cr_assert(secret(xb, 5, 2));
	cr_assert(!secret(kb, 7, 2));
	cr_assert(secret(kf, 7, 2));
}

Test(watch_dep, quiet_words)
{
	/* mov rax,[rsp+8]; mov [rax],edi: a word of the start */
	struct rcv_ins w[] = {
		INS("\x48\x8b\x44\x24\x08"), INS("\x89\x38"),
	};
	/* movl [rsp+8],1; mov rax,[rsp+8]; mov [rax],edi: a word stored
	 * to (the engine may know it)
	 */
	struct rcv_ins st[] = {
		INS("\xc7\x44\x24\x08\x01\x00\x00\x00"),
		INS("\x48\x8b\x44\x24\x08"), INS("\x89\x38"),
	};
	/* imul rax,rsp,1; mov [rax],edi: made by an operation not
	 * followed (the engine may compute it)
	 */
	struct rcv_ins im[] = { INS("\x48\x6b\xc4\x01"), INS("\x89\x38") };
	/* mov rax,[rsp+8]; mov [rax],edi; ret (pops the word at [rsp]) */
	struct rcv_ins rt[] = {
		INS("\x48\x8b\x04\x24"), INS("\x89\x38"), INS("\xc3"),
	};

	cr_assert(secret(w, 2, 1));
	cr_assert(!secret(st, 3, 2));
	cr_assert(!secret(im, 2, 0));
	cr_assert(!secret(rt, 3, 1));
}

Test(watch_dep, quiet_ret_shows)
{
	/* lea rax,[rsp+8]; push rax; ret; mov [rsp-16],edi: the return
	 * jumps to rsp + 8, so rsp is told
	 */
	struct rcv_ins in[] = {
		INS("\x48\x8d\x44\x24\x08"), INS("\x50"), INS("\xc3"),
		INS("\x89\x7c\x24\xf0"),
	};
	/* the same with push rbx: rbx is told, not rsp */
	struct rcv_ins other[] = {
		INS("\x48\x8d\x44\x24\x08"), INS("\x53"), INS("\xc3"),
		INS("\x89\x7c\x24\xf0"),
	};

	cr_assert(!secret(in, 4, 2));
	cr_assert(secret(other, 4, 2));
}

/*
 * More than 1,024 words stored relative to one secret-kind base in a
 * window with a branch: watch_dep.c's word table grows (it never did:
 * its load was not counted, and the 1,025th word probed for ever).
 */
Test(watch_dep, many_words, .timeout = 20)
{
	static const struct wpf_edge nothing;
	enum { N = 1500 };
	struct rcv_ins *in = calloc(N + 2, sizeof(*in));
	const struct rcv_ins **v = calloc(N + 2, sizeof(*v));
	uint8_t *cut = calloc(N + 2, 1);
	struct wpf_out o;
	struct wpf_win *w;
	size_t i;

	cr_assert(in && v && cut);
	/* mov [rbp - 8 * (i + 1)],rax ...; test eax,eax; je */
	for (i = 0; i < N; i++) {
		int32_t d = -8 * (int32_t)(i + 1);
		char b[7] = { 0x48, 0x89, (char)0x85 };

		memcpy(b + 3, &d, 4);
		in[i] = ins(b, 7);
	}
	in[N] = INS("\x85\xc0");
	in[N + 1] = INS("\x74\x00");
	for (i = 0; i < N + 2; i++)
		v[i] = &in[i];
	cr_assert_eq(wpf_win_run(v, cut, N + 2, 0, &nothing, true, &w), 0);
	cr_assert_eq(wpf_win_acc(w, 0, &o), 0);
	cr_assert_eq(o.nacc, N);
	cr_assert(o.acc[0].secret && o.acc[N - 1].secret);
	wpf_out_free(&o);
	wpf_win_free(w);
	free(cut);
	free(v);
	free(in);
}

/*
 * What the engine cannot see through: an instruction capstone 4 cannot
 * read (kmovd eax,k0 here, as rcv_decode.c leaves it) makes the vector
 * state, the flags and its destination unknown to it, and nothing flows
 * back; and the distance of two pointers of one base is a constant.
 * mov [rbp-4],edi first; a branch that shows rax last (jne not taken).
 */
Test(watch_dep, quiet_opaque)
{
	/* movq xmm0,rbp; (kmovd eax,k0); test eax,eax; jne */
	static const struct at_ins kv[] = {
		AT("\x89\x7d\xfc", 0), AT("\x66\x48\x0f\x6e\xc5", 0),
		AT("\x90", 0), AT("\x85\xc0", 0), AT("\x75\x10", 0),
		AT("\x90", 0),
	};
	/* movq xmm0,rbp; movq rax,xmm0; test eax,eax; jne: shown */
	static const struct at_ins xv[] = {
		AT("\x89\x7d\xfc", 0), AT("\x66\x48\x0f\x6e\xc5", 0),
		AT("\x66\x48\x0f\x7e\xc0", 0), AT("\x85\xc0", 0),
		AT("\x75\x10", 0), AT("\x90", 0),
	};
	/* lea rax,[rbp+16]; sub rax,rbp; test rax,rax; jne */
	static const struct at_ins df[] = {
		AT("\x89\x7d\xfc", 0), AT("\x48\x8d\x45\x10", 0),
		AT("\x48\x29\xe8", 0), AT("\x48\x85\xc0", 0),
		AT("\x75\x10", 0), AT("\x90", 0),
	};
	/* lea rax,[rbx+16]; sub rax,rbp: another base, which the engine
	 * does not know either: an equation of two unknowns tells it
	 * neither (rcv_back.c)
	 */
	static const struct at_ins db[] = {
		AT("\x89\x7d\xfc", 0), AT("\x48\x8d\x43\x10", 0),
		AT("\x48\x29\xe8", 0), AT("\x48\x85\xc0", 0),
		AT("\x75\x10", 0), AT("\x90", 0),
	};
	/* mov ebx,0x1000 first: a constant, so the result gives rbp */
	static const struct at_ins dk[] = {
		AT("\x89\x7d\xfc", 0), AT("\xbb\x00\x10\x00\x00", 0),
		AT("\x48\x8d\x43\x10", 0),
		AT("\x48\x29\xe8", 0), AT("\x48\x85\xc0", 0),
		AT("\x75\x10", 0), AT("\x90", 0),
	};
	/* mov rax,rbp; and rax,-16; sub rax,rbp: rbp's low bits */
	static const struct at_ins da[] = {
		AT("\x89\x7d\xfc", 0), AT("\x48\x89\xe8", 0),
		AT("\x48\x83\xe0\xf0", 0), AT("\x48\x29\xe8", 0),
		AT("\x48\x85\xc0", 0), AT("\x75\x10", 0), AT("\x90", 0),
	};
	/* cmp rax,rbp after lea rax,[rbp+16]: the flags too */
	static const struct at_ins dc[] = {
		AT("\x89\x7d\xfc", 0), AT("\x48\x8d\x45\x10", 0),
		AT("\x48\x39\xe8", 0), AT("\x75\x10", 0), AT("\x90", 0),
	};
	struct rcv_ins in[8];
	struct wpf_out o;
	struct wpf_win *w;
	static const struct wpf_edge nothing;

	lay(kv, 6, in);
	kmovd_eax_k0(&in[2]);
	in[2].xw = 0xffff;
	w = run(in, 6, &nothing, NULL, &o);
	cr_assert(o.acc[0].secret);
	wpf_out_free(&o);
	wpf_win_free(w);
	cr_assert(!secret_at(xv, 6, NULL, 0));
	cr_assert(secret_at(df, 6, NULL, 0));
	cr_assert(secret_at(db, 6, NULL, 0));
	cr_assert(!secret_at(dk, 7, NULL, 0));
	cr_assert(!secret_at(da, 7, NULL, 0));
	cr_assert(secret_at(dc, 5, NULL, 0));
}

/*
 * An indexed address the pass does not follow (neither register a
 * constant): the engine needs both registers; secret where either's base
 * is, not where both are made by instructions it may compute.
 */
Test(watch_dep, quiet_indexed)
{
	/* mov [rdi+rax],dl: both registers of the start */
	struct rcv_ins st[] = { INS("\x88\x14\x07") };
	/* imul rax,rsp,1; imul rdi,rsp,1; mov [rdi+rax],dl */
	struct rcv_ins im[] = {
		INS("\x48\x6b\xc4\x01"), INS("\x48\x6b\xfc\x01"),
		INS("\x88\x14\x07"),
	};
	/* imul rax,rsp,1; mov [rdi+rax],dl: rdi is the start's */
	struct rcv_ins one[] = {
		INS("\x48\x6b\xc4\x01"), INS("\x88\x14\x07"),
	};
	/* imul rax,rsp,1; mov [rax+rdi],dl: the index is the start's */
	struct rcv_ins idx[] = {
		INS("\x48\x6b\xc4\x01"), INS("\x88\x14\x38"),
	};
	/* mov [rdi+rax],dl; cmp rdi,1; je (shown); cmp rax,1; je */
	struct rcv_ins sh[] = {
		INS("\x88\x14\x07"), INS("\x48\x83\xff\x01"),
		INS("\x74\x00"), INS("\x48\x83\xf8\x01"), INS("\x74\x00"),
	};

	cr_assert(secret(st, 1, 0));
	cr_assert(!secret(im, 3, 0));
	cr_assert(secret(one, 2, 0));
	cr_assert(secret(idx, 2, 0));
	cr_assert(!secret(sh, 5, 0));
}

/*
 * A cmovcc's result told by a branch tells the engine nothing of what it
 * was chosen from (rcv_back.c does not invert it): _IO_default_xsputn's
 * count, min(end - ptr, n), compared with the loop's counter at its end,
 * leaves the write pointer secret.  An add (inverted where the other
 * operand is known) does not.
 */
Test(watch_dep, quiet_cmov)
{
	/* mov rdi,[rsp+8]; mov ebx,0x40; mov r14d,7; sub rbx,rdi;
	 * cmp rbx,r14; cmova rbx,r14; test rbx,rbx; je; mov [rdi],dl
	 */
	struct rcv_ins cm[] = {
		INS("\x48\x8b\x7c\x24\x08"), INS("\xbb\x40\x00\x00\x00"),
		INS("\x41\xbe\x07\x00\x00\x00"), INS("\x48\x29\xfb"),
		INS("\x4c\x39\xf3"), INS("\x49\x0f\x47\xde"),
		INS("\x48\x85\xdb"), INS("\x74\x00"), INS("\x88\x17"),
	};
	/* the same with add rbx,r14 for the cmova */
	struct rcv_ins ad[] = {
		INS("\x48\x8b\x7c\x24\x08"), INS("\xbb\x40\x00\x00\x00"),
		INS("\x41\xbe\x07\x00\x00\x00"), INS("\x48\x29\xfb"),
		INS("\x4c\x39\xf3"), INS("\x4c\x01\xf3"),
		INS("\x48\x85\xdb"), INS("\x74\x00"), INS("\x88\x17"),
	};
	/* cmova, then the loop's end shows the pointer itself too:
	 * test rdi,rdi; je
	 */
	struct rcv_ins sh[] = {
		INS("\x48\x8b\x7c\x24\x08"), INS("\xbb\x40\x00\x00\x00"),
		INS("\x41\xbe\x07\x00\x00\x00"), INS("\x48\x29\xfb"),
		INS("\x4c\x39\xf3"), INS("\x49\x0f\x47\xde"),
		INS("\x48\x85\xdb"), INS("\x74\x00"), INS("\x48\x85\xff"),
		INS("\x74\x00"), INS("\x88\x17"),
	};

	cr_assert(secret(cm, 9, 1));
	cr_assert(!secret(ad, 9, 1));
	cr_assert(!secret(sh, 11, 1));
}

/*
 * xchg gives each register the other's value: an access through rdi
 * after `xchg %rsi,%rdi` is as secret as one through rsi before it,
 * which a branch on rsi shows (session 18's review: a new base made from
 * both registers took rdi's for its base and was called secret where the
 * engine knows it, review 7's costack in windows of 100).  Other forms
 * (32-bit, xadd) are never secret.
 */
Test(watch_dep, quiet_xchg)
{
	/* test rsi,rsi; je +0; xchg rsi,rdi; mov [rdi],eax */
	struct rcv_ins sh[] = {
		INS("\x48\x85\xf6"), INS("\x74\x00"), INS("\x48\x87\xfe"),
		INS("\x89\x07"),
	};
	/* the same, nothing shown: the store's base is rsi's, secret */
	struct rcv_ins qt[] = {
		INS("\x48\x87\xfe"), INS("\x89\x07"),
	};
	/* test rsi,rsi; je +0; xchg esi,edi; mov [rdi],eax */
	struct rcv_ins x32[] = {
		INS("\x48\x85\xf6"), INS("\x74\x00"), INS("\x87\xfe"),
		INS("\x89\x07"),
	};
	/* xadd rdi,rsi (rsi gets rdi's); mov [rsi],eax */
	struct rcv_ins xa[] = {
		INS("\x48\x0f\xc1\xf7"), INS("\x89\x06"),
	};

	cr_assert(!secret(sh, 4, 0));
	cr_assert(secret(qt, 2, 0));
	cr_assert(!secret(x32, 4, 0));
	cr_assert(!secret(xa, 2, 0));
}

Test(watch_dep, quiet_pop_pair)
{
	/* push rbx; mov [rdi],eax; pop rbx; mov [rbx+0x28],rdx */
	struct rcv_ins pp[] = {
		INS("\x48\x85\xc9"), INS("\x74\x00"), INS("\x53"), INS("\x89\x07"), INS("\x5b"),
		INS("\x48\x89\x53\x28"),
	};
	/* push 0x1000: a constant, which the engine knows back */
	struct rcv_ins pk[] = {
		INS("\x48\x85\xc9"), INS("\x74\x00"), INS("\x68\x00\x10\x00\x00"), INS("\x89\x07"), INS("\x5b"),
		INS("\x48\x89\x53\x28"),
	};
	/* push rbx; test rbx,rbx; je: the value pushed is told */
	struct rcv_ins pt[] = {
		INS("\x53"), INS("\x48\x85\xdb"), INS("\x74\x00"),
		INS("\x89\x07"), INS("\x5b"), INS("\x48\x89\x53\x28"),
	};
	/* push rbx; mov [rdi],eax; pop rbx; test rbx,rbx; je: the value
	 * popped is told
	 */
	struct rcv_ins po[] = {
		INS("\x53"), INS("\x89\x07"), INS("\x5b"), INS("\x48\x85\xdb"),
		INS("\x74\x00"), INS("\x48\x89\x53\x28"),
	};
	/* push rbx; mov [rsp],rcx; pop rbx: a second store to the word,
	 * of a value told (test rcx,rcx; je)
	 */
	struct rcv_ins p2[] = {
		INS("\x48\x85\xc9"), INS("\x74\x00"), INS("\x53"), INS("\x48\x89\x0c\x24"), INS("\x48\x85\xc9"),
		INS("\x74\x00"), INS("\x89\x07"), INS("\x5b"),
		INS("\x48\x89\x53\x28"),
	};

	/* test rcx,rcx; je; push rbx; mov [rdi],eax; pop rbx;
	 * mov rsi,[rsp+16]; mov [rbx+0x28],rsi; mov rax,[0x1000];
	 * test rax,rax; je; mov [rsi],edi: the popped rbx is a base of the
	 * secret kind, so the load of known address cannot read what was
	 * stored through it
	 */
	struct rcv_ins sk[] = {
		INS("\x48\x85\xc9"), INS("\x74\x00"), INS("\x53"),
		INS("\x89\x07"), INS("\x5b"), INS("\x48\x8b\x74\x24\x10"),
		INS("\x48\x89\x73\x28"),
		INS("\x48\x8b\x04\x25\x00\x10\x00\x00"),
		INS("\x48\x85\xc0"), INS("\x74\x00"), INS("\x89\x3e"),
	};
	/* the same with the pushed rbx told (test rbx,rbx; je after the
	 * push): the engine may know the popped rbx, and so pair that
	 * store with the load
	 */
	struct rcv_ins st[] = {
		INS("\x48\x85\xc9"), INS("\x74\x00"), INS("\x53"),
		INS("\x48\x85\xdb"), INS("\x74\x00"),
		INS("\x89\x07"), INS("\x5b"), INS("\x48\x8b\x74\x24\x10"),
		INS("\x48\x89\x73\x28"),
		INS("\x48\x8b\x04\x25\x00\x10\x00\x00"),
		INS("\x48\x85\xc0"), INS("\x74\x00"), INS("\x89\x3e"),
	};

	cr_assert(secret(sk, 11, 6));
	cr_assert(!secret(st, 13, 6));
	cr_assert(secret(pp, 6, 3));
	cr_assert(!secret(pk, 6, 3));
	cr_assert(!secret(pt, 6, 3));
	cr_assert(!secret(po, 6, 3));
	cr_assert(!secret(p2, 9, 4));
}

/*
 * fs- and gs-relative accesses (the stack protector's canary, errno, the
 * locale) in a far window: the engine, computing it on its own, adds
 * fs_base only in the windows of its chain from the end and gs_base
 * never (rcv_mem.c's rcv_fs_absolute()), so it knows none of their
 * addresses whatever the trace shows: secret.  An access relative to a
 * register a branch shows beside them is not.
 */
Test(watch_dep, quiet_fs)
{
	/* mov rax,fs:0x28; mov rcx,gs:0x10; mov rax,[rbx+0x28];
	 * test ebx,ebx; je +0; mov rdx,fs:[rbx]
	 */
	struct rcv_ins in[] = {
		INS("\x64\x48\x8b\x04\x25\x28\x00\x00\x00"),
		INS("\x65\x48\x8b\x0c\x25\x10\x00\x00\x00"),
		INS("\x48\x8b\x43\x28"), INS("\x85\xdb"), INS("\x74\x00"),
		INS("\x64\x48\x8b\x13"),
	};

	cr_assert(secret(in, 6, 0));
	cr_assert(secret(in, 6, 1));
	cr_assert(!secret(in, 6, 2));
	/* through a register the branch shows, fs-relative: still not
	 * known to the engine without fs_base
	 */
	cr_assert(secret(in, 6, 3));
}

/*
 * A 64-bit sum (add, lea base + index) with an addend the engine cannot
 * know is unknown to it (its known bits are a low run), unless something
 * shown depends on the sum: va_arg's reg_save_area + gp_offset in
 * vfprintf.  Where both addends are told, the sum is not secret.
 */
Test(watch_dep, quiet_sum)
{
	/* add rax,rbx; mov ecx,[rax]; test edx,edx; je +0 */
	struct rcv_ins in[] = {
		INS("\x48\x01\xd8"), INS("\x8b\x08"), INS("\x85\xd2"),
		INS("\x74\x00"),
	};
	/* ... test eax,eax: the sum shown */
	struct rcv_ins sh[] = {
		INS("\x48\x01\xd8"), INS("\x8b\x08"), INS("\x85\xc0"),
		INS("\x74\x00"),
	};
	/* test ebx,ebx; je +0; add rax,rbx; mov ecx,[rax]: one addend
	 * shown, the other not
	 */
	struct rcv_ins one[] = {
		INS("\x85\xdb"), INS("\x74\x00"), INS("\x48\x01\xd8"),
		INS("\x8b\x08"),
	};
	/* test ebx,ebx; je +0; test eax,eax; je +0; add rax,rbx;
	 * mov ecx,[rax]: both shown
	 */
	struct rcv_ins both[] = {
		INS("\x85\xdb"), INS("\x74\x00"), INS("\x85\xc0"),
		INS("\x74\x00"), INS("\x48\x01\xd8"), INS("\x8b\x08"),
	};
	/* add rax,[rdi+0x10]; mov ecx,[rax]; test edx,edx; je +0 */
	struct rcv_ins mem[] = {
		INS("\x48\x03\x47\x10"), INS("\x8b\x08"), INS("\x85\xd2"),
		INS("\x74\x00"),
	};
	/* lea rcx,[rax+rbx*4]; mov edx,[rcx]; test esi,esi; je +0; and
	 * with test ecx,ecx: the sum shown
	 */
	struct rcv_ins lea[] = {
		INS("\x48\x8d\x0c\x98"), INS("\x8b\x11"), INS("\x85\xf6"),
		INS("\x74\x00"),
	};
	struct rcv_ins lsh[] = {
		INS("\x48\x8d\x0c\x98"), INS("\x8b\x11"), INS("\x85\xc9"),
		INS("\x74\x00"),
	};

	cr_assert(secret(in, 4, 0));
	cr_assert(!secret(sh, 4, 0));
	cr_assert(secret(one, 4, 0));
	cr_assert(!secret(both, 6, 0));
	cr_assert(secret(mem, 4, 1));
	cr_assert(secret(lea, 4, 0));
	cr_assert(!secret(lsh, 4, 0));
	/* push rbx; add rax,[rsp]; test eax,eax; je +0; mov ecx,[rbx]:
	 * the word added is the pushed rbx (the pass's slot), which the
	 * sum shown tells only with rax known: not here (rax is the
	 * start's); with mov rax,[0x1000] first (an address the engine
	 * may know: the image's bytes), it does
	 */
	{
		struct rcv_ins sl[] = {
			INS("\x53"), INS("\x48\x03\x04\x24"),
			INS("\x85\xc0"), INS("\x74\x00"), INS("\x8b\x0b"),
		};
		struct rcv_ins sk[] = {
			INS("\x48\x8b\x04\x25\x00\x10\x00\x00"),
			INS("\x53"), INS("\x48\x03\x04\x24"),
			INS("\x85\xc0"), INS("\x74\x00"), INS("\x8b\x0b"),
		};

		cr_assert(secret(sl, 5, 2));
		cr_assert(!secret(sk, 6, 3));
	}
}

/*
 * What the engine never computes (rcv_sem.c does not model it): a
 * register an undecoded VEX or EVEX writes (kmovd eax, k0 in strchr) is
 * unknown to it as a register at the window's start is, unless a branch
 * shows it; an access through it is secret.  bsf's result is computed
 * since rcv_bits.c (a known source not 0): secret only where its source
 * is (a proof that took it for secret would skip a window whose access
 * the engine places, and a read watchpoint would miss it).
 */
Test(watch_dep, quiet_unmodelled)
{
	/* mov [rbp-4],edi; (kmovd eax,k0); mov ecx,[rax]; test edx,edx;
	 * je +0
	 */
	static const struct at_ins kv[] = {
		AT("\x89\x7d\xfc", 0), AT("\x90", 0), AT("\x8b\x08", 0),
		AT("\x85\xd2", 0), AT("\x74\x00", 0),
	};
	/* mov eax,0x1234; bsf eax,eax; mov ecx,[rax]; test edx,edx;
	 * je +0: computed (rcv_bits.c: a known source not 0), not secret;
	 * bsf eax,edi, edi the window's: secret; and with test eax,eax:
	 * shown
	 */
	struct rcv_ins bsf[] = {
		INS("\xb8\x34\x12\x00\x00"), INS("\x0f\xbc\xc0"),
		INS("\x8b\x08"), INS("\x85\xd2"), INS("\x74\x00"),
	};
	struct rcv_ins bsx[] = {
		INS("\xb8\x34\x12\x00\x00"), INS("\x0f\xbc\xc7"),
		INS("\x8b\x08"), INS("\x85\xd2"), INS("\x74\x00"),
	};
	struct rcv_ins bsh[] = {
		INS("\xb8\x34\x12\x00\x00"), INS("\x0f\xbc\xc0"),
		INS("\x8b\x08"), INS("\x85\xc0"), INS("\x74\x00"),
	};
	static const struct wpf_edge nothing;
	struct rcv_ins in[5];
	struct wpf_out o;
	struct wpf_win *w;

	lay(kv, 5, in);
	kmovd_eax_k0(&in[1]);
	w = run(in, 5, &nothing, NULL, &o);
	cr_assert_eq(o.nacc, 2);
	cr_assert(o.acc[1].secret);
	wpf_out_free(&o);
	wpf_win_free(w);
	cr_assert(!secret(bsf, 5, 0));
	cr_assert(secret(bsx, 5, 0));
	cr_assert(!secret(bsh, 5, 0));
}

/*
 * What the engine learns back from a shown value (watch_dep.c's
 * knowledge fixpoint): through add, sub, xor and cmp only where the other
 * operand is known (rcv_back.c), whether computed forward (a constant, a
 * load of an address it may know) or learned from another shown value,
 * in any order.  mov [rbp-4],edi is the access asked about.
 */
Test(watch_dep, know_invert)
{
	/* mov rcx,[0x1000]; mov rax,rbp; sub rax,rcx; test rax,rax; je */
	struct rcv_ins ld[] = {
		INS("\x48\x8b\x0c\x25\x00\x10\x00\x00"), INS("\x48\x89\xe8"),
		INS("\x48\x29\xc8"), INS("\x48\x85\xc0"), INS("\x74\x00"),
		INS("\x89\x7d\xfc"),
	};
	/* the same with rcx the start's: neither operand known */
	struct rcv_ins un[] = {
		INS("\x48\x89\xe8"), INS("\x48\x29\xc8"), INS("\x48\x85\xc0"),
		INS("\x74\x00"), INS("\x89\x7d\xfc"),
	};
	/* mov rcx,[0x1000]; lea rax,[rbp+8]; xor rax,rcx; sub rax,rdx;
	 * test rax,rax; je; test rdx,rdx; je: two steps, the second's
	 * other operand shown by a later branch
	 */
	struct rcv_ins ch[] = {
		INS("\x48\x8b\x0c\x25\x00\x10\x00\x00"), INS("\x48\x8d\x45\x08"),
		INS("\x48\x31\xc8"), INS("\x48\x29\xd0"), INS("\x48\x85\xc0"),
		INS("\x74\x00"), INS("\x48\x85\xd2"), INS("\x74\x00"),
		INS("\x89\x7d\xfc"),
	};
	/* the same without the branch on rdx */
	struct rcv_ins nd[] = {
		INS("\x48\x8b\x0c\x25\x00\x10\x00\x00"), INS("\x48\x8d\x45\x08"),
		INS("\x48\x31\xc8"), INS("\x48\x29\xd0"), INS("\x48\x85\xc0"),
		INS("\x74\x00"), INS("\x89\x7d\xfc"),
	};

	cr_assert(!secret(ld, 6, 1));
	cr_assert(secret(un, 5, 0));
	cr_assert(!secret(ch, 9, 1));
	cr_assert(secret(nd, 7, 1));
}

/* Operations the engine never inverts: a shown result or flags tell it
 * nothing of what they read (zf_result() gives the result alone).
 */
Test(watch_dep, know_never)
{
	/* mov rax,rbp; shl rax,4; test rax,rax; je */
	struct rcv_ins sh[] = {
		INS("\x48\x89\xe8"), INS("\x48\xc1\xe0\x04"), INS("\x48\x85\xc0"),
		INS("\x74\x00"), INS("\x89\x7d\xfc"),
	};
	/* mov rax,rbp; and rax,rbx; je */
	struct rcv_ins an[] = {
		INS("\x48\x89\xe8"), INS("\x48\x21\xd8"), INS("\x74\x00"),
		INS("\x89\x7d\xfc"),
	};
	/* test rbp,rbx; je */
	struct rcv_ins te[] = {
		INS("\x48\x85\xdd"), INS("\x74\x00"), INS("\x89\x7d\xfc"),
	};
	/* mov rax,rbp; imul rax,rbx; test rax,rax; je */
	struct rcv_ins im[] = {
		INS("\x48\x89\xe8"), INS("\x48\x0f\xaf\xc3"), INS("\x48\x85\xc0"),
		INS("\x74\x00"), INS("\x89\x7d\xfc"),
	};
	/* mov rax,rbp; or rax,rbx; je */
	struct rcv_ins orr[] = {
		INS("\x48\x89\xe8"), INS("\x48\x09\xd8"), INS("\x74\x00"),
		INS("\x89\x7d\xfc"),
	};

	cr_assert(secret(sh, 5, 0));
	cr_assert(secret(an, 4, 0));
	cr_assert(secret(te, 3, 0));
	cr_assert(secret(im, 5, 0));
	cr_assert(secret(orr, 4, 0));
}

/*
 * What the engine may compute forward counts as known operand: values
 * made from constants alone, a shift that leaves the low 32 bits zero,
 * the vector state (whose constants the analysis does not follow).
 * Each makes the shown difference give rbp.
 */
Test(watch_dep, know_forward)
{
	/* mov ecx,5; shl rcx,4; mov rax,rbp; sub rax,rcx; test; je */
	struct rcv_ins kc[] = {
		INS("\xb9\x05\x00\x00\x00"), INS("\x48\xc1\xe1\x04"),
		INS("\x48\x89\xe8"), INS("\x48\x29\xc8"), INS("\x48\x85\xc0"),
		INS("\x74\x00"), INS("\x89\x7d\xfc"),
	};
	/* mov rcx,rsi; shl rcx,32; mov rax,rbp; sub eax,ecx;
	 * test eax,eax; je
	 */
	struct rcv_ins ab[] = {
		INS("\x48\x89\xf1"), INS("\x48\xc1\xe1\x20"),
		INS("\x48\x89\xe8"), INS("\x29\xc8"), INS("\x85\xc0"),
		INS("\x74\x00"), INS("\x89\x7d\xfc"),
	};
	/* pxor xmm0,xmm0; movq rcx,xmm0; mov rax,rbp; sub rax,rcx;
	 * test rax,rax; je
	 */
	struct rcv_ins vx[] = {
		INS("\x66\x0f\xef\xc0"), INS("\x66\x48\x0f\x7e\xc1"),
		INS("\x48\x89\xe8"), INS("\x48\x29\xc8"), INS("\x48\x85\xc0"),
		INS("\x74\x00"), INS("\x89\x7d\xfc"),
	};

	cr_assert(!secret(kc, 7, 0));
	cr_assert(!secret(ab, 7, 0));
	cr_assert(!secret(vx, 7, 0));
}

/*
 * A value an instruction computed that the engine may neither learn back
 * nor compute forward is secret too where loads are asked about
 * (wpf_win_acc(); _itoa_word's digit indexing its table): an index
 * made by shr from rdi at the start, not shown.  Shown (test; je), or
 * made from a constant, it is not; wpf_win_acc_any() (write
 * watchpoints) calls no computed value secret.
 */
Test(watch_dep, know_computed)
{
	/* mov rax,rdi; shr rax,4; movzx ecx,byte [rax+0x1000];
	 * test edx,edx; je (a branch on rdx alone: the analysis runs)
	 */
	struct rcv_ins ix[] = {
		INS("\x48\x89\xf8"), INS("\x48\xc1\xe8\x04"),
		INS("\x0f\xb6\x88\x00\x10\x00\x00"), INS("\x85\xd2"),
		INS("\x74\x00"),
	};
	/* ... test rax,rax; je: the index shown */
	struct rcv_ins sh[] = {
		INS("\x48\x89\xf8"), INS("\x48\xc1\xe8\x04"),
		INS("\x0f\xb6\x88\x00\x10\x00\x00"), INS("\x48\x85\xc0"),
		INS("\x74\x00"),
	};
	/* mov eax,0x40; shr rax,4; movzx ecx,byte [rax+0x1000]: from a
	 * constant (the pass does not follow the shift)
	 */
	struct rcv_ins kc[] = {
		INS("\xb8\x40\x00\x00\x00"), INS("\x48\xc1\xe8\x04"),
		INS("\x0f\xb6\x88\x00\x10\x00\x00"), INS("\x85\xd2"),
		INS("\x74\x00"),
	};
	static const struct wpf_edge nothing;
	struct wpf_out o;
	struct wpf_win *w;

	cr_assert(secret(ix, 5, 0));
	cr_assert(!secret(sh, 5, 0));
	cr_assert(!secret(kc, 5, 0));
	w = run(ix, 5, &nothing, NULL, &o);
	wpf_out_free(&o);
	cr_assert_eq(wpf_win_acc_any(w, 0, &o), 0);
	cr_assert(!o.acc[0].secret);
	wpf_out_free(&o);
	wpf_win_free(w);
}
