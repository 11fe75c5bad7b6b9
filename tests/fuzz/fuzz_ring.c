// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the kernel's reader of the completion ring, the
 * code lakelib/ring.c runs on memory laked writes: the input is the ring
 * as a hostile laked may leave it (the producer's tail, each slot's length
 * and bytes) and the kernel's own head. The reader takes blobs with
 * lake_ring_take() and walks each with the reply codec, as the reap does.
 * A reference reading of the contract (uapi/lake/ring.h) judges every
 * answer: what may be taken is exactly tail - head slots when that is at
 * most LAKE_RING_ENTRIES, each whole and bounded, and anything else is
 * -EPROTO; ASan bounds every copy.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lake/ring.h>
#include <lake/wire.h>

static void check(int cond)
{
	if (!cond)
		abort();
}

static u32 get_u32(const uint8_t **p, size_t *n)
{
	u32 v = 0;

	if (*n >= 4) {
		memcpy(&v, *p, 4);
		*p += 4;
		*n -= 4;
	}
	return v;
}

static bool len_ok(u32 len)
{
	return len && len % 8 == 0 && len <= LAKE_RING_DATA_MAX;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static u8 buf[LAKE_RING_DATA_MAX];
	static void *mem;
	struct lake_wire_iter it;
	struct lake_wire_rep rep;
	struct lake_ring r;
	u32 head, tail, avail, i, len, n;
	int ret;

	if (!mem)
		mem = aligned_alloc(4096, (LAKE_RING_BYTES + 4095) & ~4095u);
	memset(mem, 0, LAKE_RING_BYTES);
	lake_ring_init(&r, mem, false);
	head = get_u32(&data, &size);
	tail = get_u32(&data, &size);
	r.pos = r.seen = head;
	r.dir->head = head;
	r.dir->tail = tail;
	for (i = 0; i < LAKE_RING_ENTRIES; i++) {
		struct lake_ring_slot *s = &r.slots[(head + i) % LAKE_RING_ENTRIES];

		s->len = get_u32(&data, &size);
		/* Real-looking lengths most of the time, so blobs reach the codec. */
		if (s->len >> 31)
			s->len = (s->len & 0x3ff) * 8;
		n = s->len < LAKE_RING_DATA_MAX ? s->len : LAKE_RING_DATA_MAX;
		n = n < size ? n : (u32)size;
		memcpy(s->data, data, n);
		data += n;
		size -= n;
	}

	avail = tail - head;
	for (i = 0;; i++) {
		struct lake_ring_slot *s = &r.slots[(head + i) % LAKE_RING_ENTRIES];

		ret = lake_ring_take(&r, buf, sizeof(buf), &len);
		if (avail > LAKE_RING_ENTRIES) {
			check(ret == -EPROTO && i == 0);
			break;
		}
		if (i == avail) {
			check(ret == 0);
			break;
		}
		if (!len_ok(s->len)) {
			check(ret == -EPROTO);
			break;
		}
		check(ret == 1 && len == s->len && !memcmp(buf, s->data, len));
		/* Released as soon as it is copied out. */
		check(r.dir->head == head + i + 1);
		lake_wire_iter_init(&it, buf, len);
		while ((ret = lake_wire_next_rep(&it, &rep)) > 0)
			check(rep.tail_len == 0 || (rep.tail >= (const void *)buf &&
				(const u8 *)rep.tail + rep.tail_len <= buf + len));
		check(ret <= 0);
	}
	return 0;
}
