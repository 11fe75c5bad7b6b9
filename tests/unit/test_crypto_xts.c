// SPDX-License-Identifier: GPL-2.0
/*
 * examples/crypto's kernel (xts_aes.cu) as the module runs it: loaded as
 * example_xts.cubin, which the host device serves with example_xts.so, and
 * launched through the host device's CUDA API. IEEE 1619-2007's published
 * XTS-AES vectors (1, 2, 10 with a 256-bit key, 15 to 18 with ciphertext
 * stealing) and one from NIST's XTSVS, encrypted and decrypted by both CPU
 * paths, the table-free one and AES-NI, and by the GPU's table cipher (the
 * same source built by cc with -DAES_TABLE_CIPHER: its code, without a
 * GPU); then the paths against each other over every length from 16 to 600
 * bytes and three key sizes, batches mixing keys and directions, and the
 * kernel's refusals.
 */
#include "hostdev_util.h"
#include <cpuid.h>
#include "examples/crypto/xts_kernel.h"

static void random_key(struct xts_key *key, unsigned int len);

struct vec {
	const char *name, *k1, *k2, *iv, *pt, *ct;
};

/* A plaintext of 00 01 .. ff, @n bytes: IEEE 1619's vectors 4 to 18 use it. */
#define SEQ	"seq"

static const struct vec vectors[] = {
	{ "IEEE 1619 #1", "00000000000000000000000000000000", "00000000000000000000000000000000",
	  "00000000000000000000000000000000",
	  "0000000000000000000000000000000000000000000000000000000000000000",
	  "917cf69ebd68b2ec9b9fe9a3eadda692cd43d2f59598ed858c02c2652fbf922e" },
	{ "IEEE 1619 #2", "11111111111111111111111111111111", "22222222222222222222222222222222",
	  "33333333330000000000000000000000",
	  "4444444444444444444444444444444444444444444444444444444444444444",
	  "c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0" },
	{ "IEEE 1619 #10 (AES-256, 512 bytes)",
	  "2718281828459045235360287471352662497757247093699959574966967627",
	  "3141592653589793238462643383279502884197169399375105820974944592",
	  "ff000000000000000000000000000000", SEQ "512",
	  "1c3b3a102f770386e4836c99e370cf9bea00803f5e482357a4ae12d414a3e63b"
	  "5d31e276f8fe4a8d66b317f9ac683f44680a86ac35adfc3345befecb4bb188fd"
	  "5776926c49a3095eb108fd1098baec70aaa66999a72a82f27d848b21d4a741b0"
	  "c5cd4d5fff9dac89aeba122961d03a757123e9870f8acf1000020887891429ca"
	  "2a3e7a7d7df7b10355165c8b9a6d0a7de8b062c4500dc4cd120c0f7418dae3d0"
	  "b5781c34803fa75421c790dfe1de1834f280d7667b327f6c8cd7557e12ac3a0f"
	  "93ec05c52e0493ef31a12d3d9260f79a289d6a379bc70c50841473d1a8cc81ec"
	  "583e9645e07b8d9670655ba5bbcfecc6dc3966380ad8fecb17b6ba02469a020a"
	  "84e18e8f84252070c13e9f1f289be54fbc481457778f616015e1327a02b140f1"
	  "505eb309326d68378f8374595c849d84f4c333ec4423885143cb47bd71c5edae"
	  "9be69a2ffeceb1bec9de244fbe15992b11b77c040f12bd8f6a975a44a0f90c29"
	  "a9abc3d4d893927284c58754cce294529f8614dcd2aba991925fedc4ae74ffac"
	  "6e333b93eb4aff0479da9a410e4450e0dd7ae4c6e2910900575da401fc07059f"
	  "645e8b7e9bfdef33943054ff84011493c27b3429eaedb4ed5376441a77ed4385"
	  "1ad77f16f541dfd269d50d6a5f14fb0aab1cbb4c1550be97f7ab4066193c4caa"
	  "773dad38014bd2092fa755c824bb5e54c4f36ffda9fcea70b9c6e693e148c151" },
	{ "IEEE 1619 #15 (17 bytes)", "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0",
	  "bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0", "9a785634120000000000000000000000", SEQ "17",
	  "6c1625db4671522d3d7599601de7ca09ed" },
	{ "IEEE 1619 #16 (18 bytes)", "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0",
	  "bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0", "9a785634120000000000000000000000", SEQ "18",
	  "d069444b7a7e0cab09e24447d24deb1fedbf" },
	{ "IEEE 1619 #17 (19 bytes)", "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0",
	  "bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0", "9a785634120000000000000000000000", SEQ "19",
	  "e5df1351c0544ba1350b3363cd8ef4beedbf9d" },
	{ "IEEE 1619 #18 (20 bytes)", "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0",
	  "bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0", "9a785634120000000000000000000000", SEQ "20",
	  "9d84c813f719aa2c7be3f66171c7c5c2edbf9dac" },
	{ "NIST XTSVS 128-bit, one block", "46e6ed9ef42dcdb3c893093c28e1fc0f",
	  "91f5caa3b6e0bc5a14e783215c1d5b61", "72f3b054cbdc2f9e3c5bc551d44ddba0",
	  "e3778d68e730ef945b4ae3bc5b936bdd", "97409f1f71ae4521cb49a32973de4d05" },
};

static CUmodule mod;
static CUfunction fn;

static int setup(void **state)
{
	if (open_device_ctx(state))
		return -1;
	CU(D->cuModuleLoad(&mod, kernel_path("example_xts", ".cubin")));
	CU(D->cuModuleGetFunction(&fn, mod, "xts_aes"));
	return 0;
}

static int have_aesni(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_AES);
}

static size_t unhex(unsigned char *out, const char *hex)
{
	size_t n = 0;

	if (!strncmp(hex, SEQ, 3)) {
		size_t len = strtoul(hex + 3, NULL, 10);

		for (n = 0; n < len; n++)
			out[n] = (unsigned char)n;
		return n;
	}
	for (; hex[0] && hex[1]; hex += 2)
		assert_int_equal(sscanf(hex, "%2hhx", &out[n++]), 1);
	return n;
}

/* One launch over @count units; the data array is @data_len bytes. */
static CUresult launch(struct xts_unit *units, int count, const struct xts_key *keys, int nkeys,
		       unsigned char *data, unsigned int data_len, int impl)
{
	CUdeviceptr du = dev_alloc(sizeof(*units) * count), dk = dev_alloc(sizeof(*keys) * nkeys);
	CUdeviceptr dd = dev_alloc(data_len);
	void *args[] = { &du, &dk, &dd, &count, &nkeys, &data_len, &impl };
	CUresult r;

	CU(D->cuMemcpyHtoD(du, units, sizeof(*units) * count));
	CU(D->cuMemcpyHtoD(dk, keys, sizeof(*keys) * nkeys));
	CU(D->cuMemcpyHtoD(dd, data, data_len));
	r = D->cuLaunchKernel(fn, (count + 31) / 32, 1, 1, 32, 1, 1, 0, NULL, args, NULL);
	if (r == CUDA_SUCCESS)
		r = D->cuCtxSynchronize();
	if (r == CUDA_SUCCESS) {
		CU(D->cuMemcpyDtoH(units, du, sizeof(*units) * count));
		CU(D->cuMemcpyDtoH(data, dd, data_len));
	}
	CU(D->cuMemFree(du));
	CU(D->cuMemFree(dk));
	CU(D->cuMemFree(dd));
	return r;
}

/* One unit, in place; returns what ran it. */
static unsigned int run_one(const struct xts_key *key, const unsigned char *iv, unsigned char *buf,
			    unsigned int len, int decrypt, int impl)
{
	struct xts_unit u = { .len = len, .flags = decrypt ? XTS_F_DECRYPT : 0 };

	memcpy(u.iv, iv, XTS_BLOCK);
	CU(launch(&u, 1, key, 1, buf, len, impl));
	return u.ran;
}

static void check_vectors(int impl, unsigned int want_ran)
{
	unsigned char k1[32], k2[32], iv[16], pt[512], ct[512], buf[512];
	struct xts_key key;
	size_t i, klen, len;

	for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const struct vec *v = &vectors[i];

		memset(&key, 0, sizeof(key));
		klen = unhex(k1, v->k1);
		assert_int_equal(unhex(k2, v->k2), klen);
		assert_int_equal(unhex(iv, v->iv), 16);
		len = unhex(pt, v->pt);
		assert_int_equal(unhex(ct, v->ct), len);
		key.len = (unsigned int)klen;
		memcpy(key.data_key, k1, klen);
		memcpy(key.tweak_key, k2, klen);

		memcpy(buf, pt, len);
		assert_int_equal(run_one(&key, iv, buf, (unsigned int)len, 0, impl), want_ran);
		if (memcmp(buf, ct, len))
			fail_msg("%s: encryption differs (impl %d)", v->name, impl);
		assert_int_equal(run_one(&key, iv, buf, (unsigned int)len, 1, impl), want_ran);
		if (memcmp(buf, pt, len))
			fail_msg("%s: decryption differs (impl %d)", v->name, impl);
	}
}

static void test_vectors_table_free(void **state)
{
	(void)state;
	check_vectors(XTS_IMPL_TABLE_FREE, XTS_RAN_TABLE_FREE);
}

/* The GPU's cipher code, on the host: the same vectors, and the same bytes as table-free. */
static void test_vectors_gpu_cipher(void **state)
{
	static const unsigned int klens[] = { 16, 24, 32 };
	unsigned char a[300], b[300], iv[16] = { 7 };
	CUfunction cpu_fn = fn;
	struct xts_key key;
	unsigned int len, k;
	CUmodule tmod;

	(void)state;
	CU(D->cuModuleLoad(&tmod, kernel_path("example_xts_tables", ".cubin")));
	CU(D->cuModuleGetFunction(&fn, tmod, "xts_aes"));
	check_vectors(XTS_IMPL_AUTO, XTS_RAN_GPU);
	for (k = 0; k < 3; k++) {
		random_key(&key, klens[k]);
		for (len = XTS_UNIT_MIN; len <= sizeof(a); len += 7) {
			memset(a, (int)len, len);
			memcpy(b, a, len);
			assert_int_equal(run_one(&key, iv, a, len, 0, XTS_IMPL_AUTO), XTS_RAN_GPU);
			fn = cpu_fn;
			run_one(&key, iv, b, len, 0, XTS_IMPL_TABLE_FREE);
			CU(D->cuModuleGetFunction(&fn, tmod, "xts_aes"));
			if (memcmp(a, b, len))
				fail_msg("key %u, len %u: the GPU's cipher disagrees", klens[k], len);
		}
	}
	fn = cpu_fn;
	CU(D->cuModuleUnload(tmod));
}

static void test_vectors_aesni(void **state)
{
	(void)state;
	if (!have_aesni())
		skip();
	check_vectors(XTS_IMPL_AESNI, XTS_RAN_AESNI);
	check_vectors(XTS_IMPL_AUTO, XTS_RAN_AESNI);
}

static unsigned int rnd_state = 12345;

static unsigned char rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (unsigned char)(rnd_state >> 16);
}

static void random_key(struct xts_key *key, unsigned int len)
{
	unsigned int i;

	memset(key, 0, sizeof(*key));
	key->len = len;
	for (i = 0; i < len; i++) {
		key->data_key[i] = rnd();
		key->tweak_key[i] = rnd();
	}
}

/*
 * Every length 16..600 (every ciphertext-stealing remainder, many times),
 * 128/192/256-bit keys: table-free and AES-NI give the same ciphertext, and
 * each decrypts the other's.
 */
static void test_paths_agree(void **state)
{
	static const unsigned int klens[] = { 16, 24, 32 };
	unsigned char pt[600], a[600], b[600], iv[16];
	struct xts_key key;
	unsigned int len, k, i;

	(void)state;
	if (!have_aesni())
		skip();
	for (k = 0; k < 3; k++) {
		random_key(&key, klens[k]);
		for (len = XTS_UNIT_MIN; len <= sizeof(pt); len += (len < 80 ? 1 : 37)) {
			for (i = 0; i < len; i++)
				pt[i] = rnd();
			for (i = 0; i < 16; i++)
				iv[i] = rnd();
			memcpy(a, pt, len);
			memcpy(b, pt, len);
			run_one(&key, iv, a, len, 0, XTS_IMPL_TABLE_FREE);
			run_one(&key, iv, b, len, 0, XTS_IMPL_AESNI);
			if (memcmp(a, b, len))
				fail_msg("key %u, len %u: the paths disagree", klens[k], len);
			assert_memory_not_equal(a, pt, len);
			run_one(&key, iv, a, len, 1, XTS_IMPL_AESNI);
			run_one(&key, iv, b, len, 1, XTS_IMPL_TABLE_FREE);
			assert_memory_equal(a, pt, len);
			assert_memory_equal(b, pt, len);
		}
	}
}

/* A batch as the module builds one: units of mixed keys and directions. */
static void test_batch(void **state)
{
	enum { N = 40, LEN = 512 };
	static unsigned char data[N * LEN], want[N * LEN];
	struct xts_unit units[N], one;
	struct xts_key keys[3];
	int i, impl;

	(void)state;
	for (i = 0; i < 3; i++)
		random_key(&keys[i], i == 1 ? 32 : 16);
	for (impl = XTS_IMPL_TABLE_FREE; impl <= (have_aesni() ? XTS_IMPL_AESNI : 1); impl++) {
		for (i = 0; i < N * LEN; i++)
			data[i] = rnd();
		memset(units, 0, sizeof(units));
		for (i = 0; i < N; i++) {
			units[i].offset = i * LEN;
			units[i].len = LEN - 16 * (i % 3) - (i % 5);	/* some steal */
			units[i].key = i % 3;
			units[i].flags = i % 2 ? XTS_F_DECRYPT : 0;
			units[i].iv[0] = (unsigned char)i;
			/* The same unit alone, for the expected result. */
			one = units[i];
			one.offset = 0;
			one.key = 0;
			memcpy(want + i * LEN, data + i * LEN, LEN);
			CU(launch(&one, 1, &keys[i % 3], 1, want + i * LEN, one.len, impl));
		}
		CU(launch(units, N, keys, 3, data, sizeof(data), impl));
		for (i = 0; i < N; i++)
			assert_int_equal(units[i].ran, impl == XTS_IMPL_AESNI ? XTS_RAN_AESNI :
							XTS_RAN_TABLE_FREE);
		assert_memory_equal(data, want, sizeof(data));
	}
}

/* Units the kernel must refuse: the launch fails, nothing is written. */
static void test_refusals(void **state)
{
	unsigned char data[64] = { 0 }, zero[64] = { 0 };
	struct xts_unit u;
	struct xts_key key;
	int i;

	(void)state;
	random_key(&key, 16);
	for (i = 0; i < 5; i++) {
		memset(&u, 0, sizeof(u));
		u.len = 32;
		switch (i) {
		case 0: u.len = 15; break;		/* shorter than a block */
		case 1: u.offset = 48; break;		/* past the data */
		case 2: u.len = 80; break;
		case 3: u.key = 1; break;		/* no such key */
		case 4: key.len = 20; break;		/* no such AES */
		}
		assert_int_equal(launch(&u, 1, &key, 1, data, sizeof(data), XTS_IMPL_TABLE_FREE),
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
		T(test_vectors_aesni),
		T(test_vectors_gpu_cipher),
		T(test_paths_agree),
		T(test_batch),
		T(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
