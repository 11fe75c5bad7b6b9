// SPDX-License-Identifier: GPL-2.0
/*
 * examples/crypto's GCM kernel (gcm_aes.cu) as the module runs it: loaded
 * as example_gcm.cubin, which the host device serves with example_gcm.so,
 * and launched through the host device's CUDA API. The GCM specification's
 * test cases (McGrew and Viega, "The Galois/Counter Mode of Operation",
 * appendix B) with 96-bit IVs, the only ones the kernel's gcm(aes) takes:
 * 1-4 (128-bit keys), 7-10 (192), 13-16 (256), with and without associated
 * data, 60-byte texts; each encrypted and decrypted by both CPU paths (the
 * table-free one and AES-NI + PCLMULQDQ) and by the GPU's table cipher (the
 * same source built by cc with -DAES_TABLE_CIPHER). Then the paths against
 * each other over many lengths, AAD sizes, tag sizes and keys; tampered
 * messages refused with nothing decrypted; batches mixing keys and
 * directions; the kernel's refusals.
 */
#include "hostdev_util.h"
#include <cpuid.h>
#include "examples/crypto/gcm_kernel.h"

struct vec {
	const char *name, *k, *p, *a, *iv, *c, *t;
};

#define K0	"00000000000000000000000000000000"
#define KF	"feffe9928665731c6d6a8f9467308308"
#define P64	"d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72" \
		"1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
#define P60	"d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72" \
		"1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
#define AAD	"feedfacedeadbeeffeedfacedeadbeefabaddad2"
#define IV0	"000000000000000000000000"
#define IVC	"cafebabefacedbaddecaf888"

static const struct vec vectors[] = {
	{ "GCM spec #1", K0, "", "", IV0, "", "58e2fccefa7e3061367f1d57a4e7455a" },
	{ "GCM spec #2", K0, K0, "", IV0, "0388dace60b6a392f328c2b971b2fe78",
	  "ab6e47d42cec13bdf53a67b21257bddf" },
	{ "GCM spec #3", KF, P64, "", IVC,
	  "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
	  "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
	  "4d5c2af327cd64a62cf35abd2ba6fab4" },
	{ "GCM spec #4 (AAD, 60 bytes)", KF, P60, AAD, IVC,
	  "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
	  "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
	  "5bc94fbc3221a5db94fae95ae7121a47" },
	{ "GCM spec #7 (AES-192)", K0 "0000000000000000", "", "", IV0, "",
	  "cd33b28ac773f74ba00ed1f312572435" },
	{ "GCM spec #8", K0 "0000000000000000", K0, "", IV0, "98e7247c07f0fe411c267e4384b0f600",
	  "2ff58d80033927ab8ef4d4587514f0fb" },
	{ "GCM spec #9", KF "feffe9928665731c", P64, "", IVC,
	  "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c"
	  "7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710acade256",
	  "9924a7c8587336bfb118024db8674a14" },
	{ "GCM spec #10 (AAD, 60 bytes)", KF "feffe9928665731c", P60, AAD, IVC,
	  "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c"
	  "7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710",
	  "2519498e80f1478f37ba55bd6d27618c" },
	{ "GCM spec #13 (AES-256)", K0 K0, "", "", IV0, "", "530f8afbc74536b9a963b4f1c4cb738b" },
	{ "GCM spec #14", K0 K0, K0, "", IV0, "cea7403d4d606b6e074ec5d3baf39d18",
	  "d0d1c8a799996bf0265b98b5d48ab919" },
	{ "GCM spec #15", KF KF, P64, "", IVC,
	  "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
	  "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
	  "b094dac5d93471bdec1a502270e3cc6c" },
	{ "GCM spec #16 (AAD, 60 bytes)", KF KF, P60, AAD, IVC,
	  "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
	  "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
	  "76fc6ece0f4e1768cddf8853bb2d551b" },
};

static CUmodule mod;
static CUfunction fn;

static int setup(void **state)
{
	if (open_device_ctx(state))
		return -1;
	CU(D->cuModuleLoad(&mod, kernel_path("example_gcm", ".cubin")));
	CU(D->cuModuleGetFunction(&fn, mod, "gcm_aes"));
	return 0;
}

static int have_clmul(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_AES) && (c & bit_PCLMUL) &&
	       (c & bit_SSSE3);
}

static size_t unhex(unsigned char *out, const char *hex)
{
	size_t n = 0;

	for (; hex[0] && hex[1]; hex += 2)
		assert_int_equal(sscanf(hex, "%2hhx", &out[n++]), 1);
	return n;
}

static CUresult launch(struct gcm_unit *units, int count, const struct gcm_key *keys, int nkeys,
		       unsigned char *data, unsigned int data_len, int impl)
{
	CUdeviceptr du = dev_alloc(sizeof(*units) * count), dk = dev_alloc(sizeof(*keys) * nkeys);
	CUdeviceptr dd = dev_alloc(data_len ? data_len : 1);
	void *args[] = { &du, &dk, &dd, &count, &nkeys, &data_len, &impl };
	CUresult r;

	CU(D->cuMemcpyHtoD(du, units, sizeof(*units) * count));
	CU(D->cuMemcpyHtoD(dk, keys, sizeof(*keys) * nkeys));
	if (data_len)
		CU(D->cuMemcpyHtoD(dd, data, data_len));
	r = D->cuLaunchKernel(fn, (count + 31) / 32, 1, 1, 32, 1, 1, 0, NULL, args, NULL);
	if (r == CUDA_SUCCESS)
		r = D->cuCtxSynchronize();
	if (r == CUDA_SUCCESS) {
		CU(D->cuMemcpyDtoH(units, du, sizeof(*units) * count));
		if (data_len)
			CU(D->cuMemcpyDtoH(data, dd, data_len));
	}
	CU(D->cuMemFree(du));
	CU(D->cuMemFree(dk));
	CU(D->cuMemFree(dd));
	return r;
}

/*
 * One request: @aad (alen) then @text (len) laid out as the module does
 * (the text at the next 16-byte boundary); @tag in (decryption) or out.
 * Returns what ran it; *ok the tag verdict for decryption.
 */
static unsigned int run_one(const struct gcm_key *key, const unsigned char *iv,
			    const unsigned char *aad, unsigned int alen, unsigned char *text,
			    unsigned int len, unsigned char *tag, unsigned int authsize, int decrypt,
			    int impl, int *ok)
{
	static unsigned char data[4096 + 1024];
	struct gcm_unit u = { .assoclen = alen, .len = len, .authsize = authsize,
			      .flags = decrypt ? GCM_F_DECRYPT : 0 };
	unsigned int text_off = (alen + 15) & ~15u;

	assert_true(text_off + len <= sizeof(data));
	u.text = text_off;
	memcpy(u.iv, iv, GCM_IV_BYTES);
	if (decrypt)
		memcpy(u.tag, tag, authsize);
	memcpy(data, aad, alen);
	memcpy(data + text_off, text, len);
	CU(launch(&u, 1, key, 1, data, text_off + len, impl));
	memcpy(text, data + text_off, len);
	if (!decrypt)
		memcpy(tag, u.tag, 16);
	if (ok)
		*ok = (int)u.tag_ok;
	return u.ran;
}

static void check_vectors(int impl, unsigned int want_ran)
{
	unsigned char k[32], p[64], a[32], iv[12], c[64], t[16], buf[64], tag[16];
	struct gcm_key key;
	size_t i, len, alen;
	int ok;

	for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const struct vec *v = &vectors[i];

		memset(&key, 0, sizeof(key));
		key.len = (unsigned int)unhex(k, v->k);
		memcpy(key.key, k, key.len);
		len = unhex(p, v->p);
		alen = unhex(a, v->a);
		assert_int_equal(unhex(iv, v->iv), 12);
		assert_int_equal(unhex(c, v->c), len);
		assert_int_equal(unhex(t, v->t), 16);

		memcpy(buf, p, len);
		assert_int_equal(run_one(&key, iv, a, (unsigned int)alen, buf, (unsigned int)len, tag,
					 16, 0, impl, NULL), want_ran);
		if (memcmp(buf, c, len))
			fail_msg("%s: ciphertext differs (impl %d)", v->name, impl);
		if (memcmp(tag, t, 16))
			fail_msg("%s: tag differs (impl %d)", v->name, impl);
		assert_int_equal(run_one(&key, iv, a, (unsigned int)alen, buf, (unsigned int)len, t,
					 16, 1, impl, &ok), want_ran);
		if (!ok || memcmp(buf, p, len))
			fail_msg("%s: decryption refused or differs (impl %d)", v->name, impl);
		/* A tag cut to 12 bytes: the first 12 of the full one. */
		memcpy(buf, c, len);
		run_one(&key, iv, a, (unsigned int)alen, buf, (unsigned int)len, t, 12, 1, impl, &ok);
		assert_true(ok);
		assert_memory_equal(buf, p, len);
	}
}

static void test_vectors_table_free(void **state)
{
	(void)state;
	check_vectors(GCM_IMPL_TABLE_FREE, GCM_RAN_TABLE_FREE);
}

static void test_vectors_clmul(void **state)
{
	(void)state;
	if (!have_clmul())
		skip();
	check_vectors(GCM_IMPL_CLMUL, GCM_RAN_CLMUL);
	check_vectors(GCM_IMPL_AUTO, GCM_RAN_CLMUL);
}

static unsigned int rnd_state = 424242;

static unsigned char rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (unsigned char)(rnd_state >> 16);
}

static void random_key(struct gcm_key *key, unsigned int len)
{
	unsigned int i;

	memset(key, 0, sizeof(*key));
	key->len = len;
	for (i = 0; i < len; i++)
		key->key[i] = rnd();
}

static void test_vectors_gpu_cipher(void **state)
{
	CUfunction cpu_fn = fn;
	CUmodule tmod;

	(void)state;
	CU(D->cuModuleLoad(&tmod, kernel_path("example_gcm_tables", ".cubin")));
	CU(D->cuModuleGetFunction(&fn, tmod, "gcm_aes"));
	check_vectors(GCM_IMPL_AUTO, GCM_RAN_GPU);
	fn = cpu_fn;
	CU(D->cuModuleUnload(tmod));
}

static const unsigned int auth_sizes[] = { 4, 8, 12, 13, 14, 15, 16 };

/*
 * Lengths 0..300 and AAD sizes 0..70 in steps that hit every remainder,
 * three key sizes, every tag size: the two CPU paths agree on ciphertext
 * and tag, each opens the other's message, and a flipped bit anywhere (AAD,
 * text or tag) is refused with the ciphertext left as it was.
 */
static void test_paths_agree(void **state)
{
	static const unsigned int klens[] = { 16, 24, 32 };
	unsigned char pt[300], a[300], b[300], aad[70], iv[12], ta[16], tb[16], bad[16];
	unsigned int len, alen, k, i, as, n = 0;
	struct gcm_key key;
	int ok;

	(void)state;
	if (!have_clmul())
		skip();
	for (k = 0; k < 3; k++) {
		random_key(&key, klens[k]);
		for (len = 0; len <= sizeof(pt); len += (len < 40 ? 1 : 29)) {
			alen = (len * 7 + k) % (sizeof(aad) + 1);
			as = auth_sizes[n++ % 7];
			for (i = 0; i < len; i++)
				pt[i] = rnd();
			for (i = 0; i < alen; i++)
				aad[i] = rnd();
			for (i = 0; i < 12; i++)
				iv[i] = rnd();
			memcpy(a, pt, len);
			memcpy(b, pt, len);
			run_one(&key, iv, aad, alen, a, len, ta, as, 0, GCM_IMPL_TABLE_FREE, NULL);
			run_one(&key, iv, aad, alen, b, len, tb, as, 0, GCM_IMPL_CLMUL, NULL);
			if (memcmp(a, b, len) || memcmp(ta, tb, 16))
				fail_msg("key %u, len %u, aad %u: the paths disagree", klens[k], len,
					 alen);
			run_one(&key, iv, aad, alen, a, len, tb, as, 1, GCM_IMPL_CLMUL, &ok);
			assert_true(ok);
			assert_memory_equal(a, pt, len);
			run_one(&key, iv, aad, alen, b, len, ta, as, 1, GCM_IMPL_TABLE_FREE, &ok);
			assert_true(ok);
			assert_memory_equal(b, pt, len);
			/* Forgeries: one bit of the tag, the text or the AAD. */
			run_one(&key, iv, aad, alen, a, len, ta, as, 0, GCM_IMPL_AUTO, NULL);
			memcpy(b, a, len);
			memcpy(bad, ta, 16);
			bad[n % as] ^= 1u << (n % 8);
			run_one(&key, iv, aad, alen, b, len, bad, as, 1, GCM_IMPL_TABLE_FREE, &ok);
			assert_false(ok);
			assert_memory_equal(b, a, len);
			if (len) {
				b[n % len] ^= 0x80;
				run_one(&key, iv, aad, alen, b, len, ta, as, 1, GCM_IMPL_CLMUL, &ok);
				assert_false(ok);
				b[n % len] ^= 0x80;
			}
			if (alen) {
				aad[n % alen] ^= 1;
				run_one(&key, iv, aad, alen, b, len, ta, as, 1, GCM_IMPL_AUTO, &ok);
				assert_false(ok);
			}
			assert_memory_equal(b, a, len);
		}
	}
}

/* A batch as the module builds one: mixed keys, directions, AAD and text sizes. */
static void test_batch(void **state)
{
	enum { N = 40, SLOT = 640 };
	static unsigned char data[N * SLOT], want[N * SLOT];
	struct gcm_unit units[N], one;
	struct gcm_key keys[3];
	int i, impl;

	(void)state;
	for (i = 0; i < 3; i++)
		random_key(&keys[i], 16 + 8 * i);
	for (impl = GCM_IMPL_TABLE_FREE; impl <= (have_clmul() ? GCM_IMPL_CLMUL : 1); impl++) {
		for (i = 0; i < N * SLOT; i++)
			data[i] = rnd();
		memset(units, 0, sizeof(units));
		for (i = 0; i < N; i++) {
			struct gcm_unit *u = &units[i];

			u->offset = i * SLOT;
			u->assoclen = (i * 13) % 100;
			u->text = u->offset + ((u->assoclen + 15) & ~15u);
			u->len = 512 - 16 * (i % 3) - (i % 5);
			u->key = i % 3;
			u->authsize = auth_sizes[i % 7];
			u->flags = 0;
			u->iv[0] = (unsigned char)i;
			one = *u;
			one.offset = 0;
			one.text -= u->offset;
			one.key = 0;
			memcpy(want + i * SLOT, data + i * SLOT, SLOT);
			CU(launch(&one, 1, &keys[i % 3], 1, want + i * SLOT, SLOT, impl));
			memcpy(u->tag, one.tag, 16);	/* compared below */
			/* Every other unit decrypts what the single run made. */
			if (i % 2) {
				u->flags = GCM_F_DECRYPT;
				memcpy(data + i * SLOT, want + i * SLOT, SLOT);
				memcpy(want + i * SLOT + (one.text - one.offset),
				       data + i * SLOT + (one.text - one.offset), 0);
			}
		}
		/* The expected plaintexts of the decrypting units: the original data. */
		for (i = 1; i < N; i += 2) {
			struct gcm_unit u2 = units[i];

			u2.offset = 0;
			u2.text -= units[i].offset;
			u2.key = 0;
			memcpy(want + i * SLOT, data + i * SLOT, SLOT);
			CU(launch(&u2, 1, &keys[i % 3], 1, want + i * SLOT, SLOT, impl));
			assert_int_equal(u2.tag_ok, 1);
		}
		{
			unsigned char tags[N][16];

			for (i = 0; i < N; i++)
				memcpy(tags[i], units[i].tag, 16);
			CU(launch(units, N, keys, 3, data, sizeof(data), impl));
			for (i = 0; i < N; i++) {
				assert_int_equal(units[i].ran, impl == GCM_IMPL_CLMUL ? GCM_RAN_CLMUL :
								GCM_RAN_TABLE_FREE);
				if (i % 2)
					assert_int_equal(units[i].tag_ok, 1);
				else
					assert_memory_equal(units[i].tag, tags[i], 16);
			}
		}
		assert_memory_equal(data, want, sizeof(data));
	}
}

/* Units the kernel must refuse: the launch fails, nothing is written. */
static void test_refusals(void **state)
{
	unsigned char data[64] = { 0 }, zero[64] = { 0 };
	struct gcm_unit u;
	struct gcm_key key;
	int i;

	(void)state;
	random_key(&key, 16);
	for (i = 0; i < 7; i++) {
		memset(&u, 0, sizeof(u));
		u.assoclen = 16;
		u.text = 16;
		u.len = 32;
		u.authsize = 16;
		switch (i) {
		case 0: u.authsize = 3; break;		/* no such tag size */
		case 1: u.authsize = 10; break;
		case 2: u.text = 8; break;		/* text inside the AAD */
		case 3: u.len = 49; break;		/* past the data */
		case 4: u.offset = 60; break;
		case 5: u.key = 1; break;		/* no such key */
		case 6: key.len = 20; break;		/* no such AES */
		}
		assert_int_equal(launch(&u, 1, &key, 1, data, sizeof(data), GCM_IMPL_TABLE_FREE),
				 CUDA_ERROR_LAUNCH_FAILED);
		assert_int_equal(u.ran, 0);
		assert_memory_equal(data, zero, sizeof(data));
	}
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, close_device)
	const struct CMUnitTest tests[] = {
		T(test_vectors_table_free),
		T(test_vectors_clmul),
		T(test_vectors_gpu_cipher),
		T(test_paths_agree),
		T(test_batch),
		T(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
