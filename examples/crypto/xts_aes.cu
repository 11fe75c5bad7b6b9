// SPDX-License-Identifier: GPL-2.0
/*
 * XTS-AES (IEEE 1619-2007, with ciphertext stealing) over a batch of data
 * units, one thread per unit. Built by nvcc into example_xts.cubin for a GPU
 * and by cc into example_xts.so for laked's host device
 * (examples/crypto/crypto.mk); the module (xts_lake.c) launches it.
 *
 * Each thread expands its unit's two keys, encrypts the IV with the tweak
 * key, and walks the unit's blocks: C = E_K1(P ^ T) ^ T, T = T * alpha in
 * GF(2^128). A unit whose length is not a multiple of 16 ends with
 * ciphertext stealing, as the kernel's xts does.
 *
 * The three block ciphers, and what each leaks:
 *
 *  - AES-NI (host device, where cpuid reports it): the CPU's instructions,
 *    constant time. Compiled with a target attribute, so the .so builds and
 *    loads on any x86-64 and the choice is made at run time.
 *  - Table-free (host device, any x86-64): SSE2 on the whole 16-byte state,
 *    with SubBytes computed as inversion in GF(2^8) (x^254, by square and
 *    multiply) followed by the affine map: no memory access depends on the
 *    data or the key, and no branch does, so cache and branch timing reveal
 *    nothing. Natively it is 3 to 45 times slower than AES-NI, by request
 *    size (make bench: bench_xts).
 *  - GPU (nvcc): byte-wise AES with the S-boxes in shared memory, indexed
 *    by secret bytes. Shared-memory bank conflicts make the kernel's time
 *    depend on the data, which is a known timing channel on GPUs (key
 *    recovery from kernel times has been shown on table-based GPU AES).
 *    The trade-off is speed: a table lookup per byte is what makes a GPU
 *    pay at all without a bitsliced kernel. Where that channel matters, do
 *    not raise this driver's priority on a GPU system.
 */
#include <lake/kernel.h>
#include "xts_kernel.h"
#include "aes_device.h"

#define SCHED_BYTES	(16 * (MAX_ROUNDS + 1))

struct sched {
	struct aes_impl ai;
	unsigned char data_enc[SCHED_BYTES];
	unsigned char data_dec[SCHED_BYTES];	/* AES-NI: the equivalent inverse cipher's */
	unsigned char tweak_enc[SCHED_BYTES];
};

/* T = T * alpha in GF(2^128), little-endian as IEEE 1619 says; branch-free. */
LAKE_DEVICE void mul_alpha(unsigned char *t)
{
	unsigned int carry = 0, next;
	int i;

	for (i = 0; i < 16; i++) {
		next = t[i] >> 7;
		t[i] = (unsigned char)((t[i] << 1) | carry);
		carry = next;
	}
	t[0] ^= (unsigned char)(0x87 & (0u - carry));
}

/* 0, or -1 when AES-NI is asked for and missing. */
LAKE_DEVICE int make_sched(struct sched *ks, const struct xts_key *key, int impl)
{
	int nk = key->len / 4;

	if (aes_pick(&ks->ai, nk, impl == XTS_IMPL_AESNI, impl == XTS_IMPL_AUTO, 0))
		return -1;
	expand_key(&ks->ai, ks->data_enc, key->data_key, nk);
	expand_key(&ks->ai, ks->tweak_enc, key->tweak_key, nk);
#if !TABLES
	if (ks->ai.ran == AES_RAN_AESNI)
		ni_dec_sched(ks->data_dec, ks->data_enc, ks->ai.rounds);
#endif
	return 0;
}

LAKE_DEVICE void xts_block(const struct sched *ks, int dec, unsigned char *b,
			   const unsigned char *t)
{
	int i;

	for (i = 0; i < 16; i++)
		b[i] ^= t[i];
	cipher(&ks->ai, dec ? AES_DEC_RK(&ks->ai, ks->data_dec, ks->data_enc) : ks->data_enc, dec, b);
	for (i = 0; i < 16; i++)
		b[i] ^= t[i];
}

LAKE_DEVICE void xts_unit_run(const struct sched *ks, unsigned char *p, unsigned int len,
			      const unsigned char *iv, int dec)
{
	unsigned int m = len / 16, rest = len % 16, full = rest ? m - 1 : m, j;
	unsigned char t[16], t2[16], x, *a, *b;

	for (j = 0; j < 16; j++)
		t[j] = iv[j];
	cipher(&ks->ai, ks->tweak_enc, 0, t);
	for (j = 0; j < full; j++) {
		xts_block(ks, dec, p + 16 * j, t);
		mul_alpha(t);
	}
	if (!rest)
		return;
	/* Ciphertext stealing: the last full block and the partial one after it. */
	a = p + 16 * (m - 1);
	b = a + 16;
	if (!dec) {
		xts_block(ks, 0, a, t);
		mul_alpha(t);
	} else {
		for (j = 0; j < 16; j++)
			t2[j] = t[j];
		mul_alpha(t2);
		xts_block(ks, 1, a, t2);
	}
	for (j = 0; j < rest; j++) {
		x = a[j];
		a[j] = b[j];
		b[j] = x;
	}
	xts_block(ks, dec, a, t);
}

LAKE_KERNEL(xts_aes, XTS_PARAMS)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	struct xts_unit *u;
	const struct xts_key *key;
	struct sched ks;

	AES_KERNEL_TABLES(&ks.ai);
	if (i >= count)
		return;
	u = &units[i];
	if (u->key >= (unsigned int)nkeys || u->len < XTS_UNIT_MIN || u->offset > data_len ||
	    u->len > data_len - u->offset)
		LAKE_TRAP();
	key = &keys[u->key];
	if (key->len != 16 && key->len != 24 && key->len != 32)
		LAKE_TRAP();
	if (make_sched(&ks, key, impl))
		LAKE_TRAP();
	xts_unit_run(&ks, data + u->offset, u->len, u->iv, u->flags & XTS_F_DECRYPT);
	u->ran = ks.ai.ran;
	/* The schedules are secrets: leave none on the stack. */
	aes_wipe(&ks, sizeof(ks));
}
