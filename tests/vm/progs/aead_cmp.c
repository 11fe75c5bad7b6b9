// SPDX-License-Identifier: GPL-2.0
/*
 * aead_cmp DRIVER OTHER COUNT SEED [NAME]: COUNT gcm(aes) messages of random shape
 * through two AEAD drivers by AF_ALG (algif_aead): random key size, tag
 * size, IV, associated data (0..96 bytes) and text (0..5000 bytes; the
 * first message has neither), the input sent in random pieces and the
 * output read into random pieces of a buffer at random offsets (so the
 * kernel's scatterlists differ every time). Each driver's ciphertext must equal the other's byte for byte,
 * each must open the other's, and both must refuse a message with one bit
 * flipped (EBADMSG). Prints a line per kind of failure and a summary.
 * A tfm of DRIVER stays open from start to end, so that its module cannot
 * go while the program runs (the VM case tries). NAME prefixes the result
 * lines (aead_cmp by default).
 */
#include <linux/if_alg.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "vmtest.h"

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

#define MAX_AAD		96
#define MAX_TEXT	5000
#define MAX_MSG		(MAX_AAD + MAX_TEXT + 16)

static unsigned long long rs;

static unsigned int rnd(void)
{
	rs = rs * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned int)(rs >> 33);
}

static int tfm_open(const char *name, const unsigned char *key, unsigned int klen,
		    unsigned int authsize)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "aead" };
	int fd = socket(AF_ALG, SOCK_SEQPACKET, 0);

	if (fd < 0)
		return -1;
	strncpy((char *)sa.salg_name, name, sizeof(sa.salg_name) - 1);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(fd, SOL_ALG, ALG_SET_KEY, key, klen) ||
	    setsockopt(fd, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, NULL, authsize)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * One operation: @in (inlen) in random pieces, the result (outlen) read
 * into @out through random pieces. 0, or -errno (-EBADMSG: tag refused).
 */
static int run_op(int tfm, int decrypt, const unsigned char *iv, unsigned int assoclen,
		  const unsigned char *in, unsigned int inlen, unsigned char *out,
		  unsigned int outlen)
{
	char cbuf[CMSG_SPACE(4) + CMSG_SPACE(sizeof(struct af_alg_iv) + 12) + CMSG_SPACE(4)];
	static unsigned char scratch[2 * MAX_MSG + 4096];
	struct iovec iov[8];
	struct msghdr msg = { 0 };
	struct cmsghdr *c;
	struct af_alg_iv *aiv;
	unsigned int sent = 0, got = 0, n, k, at;
	ssize_t r;
	int op, ret = 0;

	op = accept(tfm, NULL, 0);
	if (op < 0)
		return -errno;
	memset(cbuf, 0, sizeof(cbuf));
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_OP;
	c->cmsg_len = CMSG_LEN(4);
	*(unsigned int *)CMSG_DATA(c) = decrypt ? ALG_OP_DECRYPT : ALG_OP_ENCRYPT;
	c = CMSG_NXTHDR(&msg, c);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_IV;
	c->cmsg_len = CMSG_LEN(sizeof(*aiv) + 12);
	aiv = (struct af_alg_iv *)CMSG_DATA(c);
	aiv->ivlen = 12;
	memcpy(aiv->iv, iv, 12);
	c = CMSG_NXTHDR(&msg, c);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_AEAD_ASSOCLEN;
	c->cmsg_len = CMSG_LEN(4);
	*(unsigned int *)CMSG_DATA(c) = assoclen;
	/* The input in up to four pieces, the first with the control messages. */
	do {
		n = inlen - sent;
		if (n > 1 && rnd() % 2)
			n = 1 + rnd() % n;
		iov[0].iov_base = (void *)(in + sent);
		iov[0].iov_len = n;
		msg.msg_iov = iov;
		msg.msg_iovlen = 1;
		r = sendmsg(op, &msg, sent + n < inlen ? MSG_MORE : 0);
		if (r < 0) {
			ret = -errno;
			goto out;
		}
		sent += (unsigned int)r;
		msg.msg_control = NULL;
		msg.msg_controllen = 0;
	} while (sent < inlen);
	/* The output through up to eight pieces at random offsets of scratch. */
	at = rnd() % 4096;
	for (k = 0; k < 8 && got < outlen; k++) {
		n = k == 7 ? outlen - got : 1 + rnd() % (outlen - got);
		iov[k].iov_base = scratch + at + got + 64 * k;
		iov[k].iov_len = n;
		got += n;
	}
	/*
	 * No output (a decryption of an empty text): the socket runs an
	 * operation only for a buffer with room (algif_aead's recvmsg loops
	 * while any is left), so it gets a byte it will not fill; with none the
	 * tag would go unchecked.
	 */
	if (!outlen) {
		iov[0].iov_base = scratch;
		iov[0].iov_len = 1;
		k = 1;
	}
	r = readv(op, iov, (int)k);
	if (r < 0) {
		ret = -errno;
		goto out;
	}
	if ((unsigned int)r != outlen) {
		ret = -EIO;
		goto out;
	}
	for (n = 0, got = 0; n < k; n++) {
		memcpy(out + got, iov[n].iov_base, iov[n].iov_len);
		got += (unsigned int)iov[n].iov_len;
	}
out:
	close(op);
	return ret;
}

int main(int argc, char **argv)
{
	static const unsigned int auths[] = { 4, 8, 12, 13, 14, 15, 16 };
	static unsigned char msg[MAX_MSG], a[MAX_MSG], b[MAX_MSG], back[MAX_MSG];
	unsigned int count, i, j, differ = 0, unopened = 0, forged = 0, errors = 0;
	unsigned char key[32], iv[12];
	int ta, tb, err, holder;
	const char *name;
	char what[96];

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: aead_cmp DRIVER OTHER COUNT SEED [NAME]\n");
		return 2;
	}
	name = argc == 6 ? argv[5] : "aead_cmp";
	count = (unsigned int)atoi(argv[3]);
	rs = strtoull(argv[4], NULL, 0);
	memset(key, 7, sizeof(key));
	holder = tfm_open(argv[1], key, 16, 16);
	CHECK(holder >= 0, (snprintf(what, sizeof(what), "%s.driver_bound", name), what), "%s: %s", argv[1], strerror(errno));
	for (i = 0; i < count; i++) {
		unsigned int klen = 16 + 8 * (rnd() % 3), as = auths[rnd() % 7];
		unsigned int alen = rnd() % (MAX_AAD + 1), len = rnd() % 8 ? rnd() % (MAX_TEXT + 1) : 0;
		unsigned int in, out;

		/* The first message is its tag alone, which random shapes reach 1 time in 800. */
		if (!i)
			alen = len = 0;
		in = alen + len;
		out = in + as;

		for (j = 0; j < klen; j++)
			key[j] = (unsigned char)rnd();
		for (j = 0; j < 12; j++)
			iv[j] = (unsigned char)rnd();
		for (j = 0; j < in; j++)
			msg[j] = (unsigned char)rnd();
		ta = tfm_open(argv[1], key, klen, as);
		tb = tfm_open(argv[2], key, klen, as);
		if (ta < 0 || tb < 0) {
			printf("# %s or %s: no AF_ALG aead socket: %s\n", argv[1], argv[2],
			       strerror(errno));
			errors++;
			break;
		}
		err = run_op(ta, 0, iv, alen, msg, in, a, out);
		err = err ? err : run_op(tb, 0, iv, alen, msg, in, b, out);
		if (err) {
			printf("# message %u (key %u, tag %u, aad %u, text %u): encryption: %s\n", i,
			       klen * 8, as, alen, len, strerror(-err));
			errors++;
		} else if (memcmp(a + alen, b + alen, len + as)) {
			printf("# message %u (key %u, tag %u, aad %u, text %u): the drivers' ciphertexts differ\n",
			       i, klen * 8, as, alen, len);
			differ++;
		} else {
			/* Each opens the other's (the AAD as sent, whatever the output held). */
			memcpy(a, msg, alen);
			memcpy(b, msg, alen);
			if (run_op(ta, 1, iv, alen, b, out, back, in) || memcmp(back + alen, msg + alen, len) ||
			    run_op(tb, 1, iv, alen, a, out, back, in) || memcmp(back + alen, msg + alen, len)) {
				printf("# message %u (key %u, tag %u, aad %u, text %u): not opened\n", i,
				       klen * 8, as, alen, len);
				unopened++;
			}
			/* One bit flipped, in the AAD, the text or the tag: refused by both. */
			j = rnd() % out;
			a[j] ^= (unsigned char)(1u << (rnd() % 8));
			if (run_op(ta, 1, iv, alen, a, out, back, in) != -EBADMSG ||
			    run_op(tb, 1, iv, alen, a, out, back, in) != -EBADMSG) {
				printf("# message %u (key %u, tag %u, aad %u, text %u): byte %u forged, not refused\n",
				       i, klen * 8, as, alen, len, j);
				forged++;
			}
		}
		close(ta);
		close(tb);
	}
	printf("# aead_cmp: %u messages, %u differ, %u not opened, %u forgeries accepted, %u errors\n",
	       count, differ, unopened, forged, errors);
	if (holder >= 0)
		close(holder);
	CHECK(!errors, (snprintf(what, sizeof(what), "%s.no_errors", name), what), "%u", errors);
	CHECK(!differ, (snprintf(what, sizeof(what), "%s.same_ciphertext", name), what), "%u", differ);
	CHECK(!unopened, (snprintf(what, sizeof(what), "%s.each_opens_the_other", name), what), "%u", unopened);
	CHECK(!forged, (snprintf(what, sizeof(what), "%s.forgeries_refused", name), what), "%u", forged);
	return vmt_end();
}
