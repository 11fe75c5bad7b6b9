// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the command ring's core (common/ring.c): blobs come out in
 * order and whole, across the u32 wrap of the indices; a full ring refuses
 * a put and an empty one gives nothing; every impossible value the peer
 * can write (an index too far ahead or behind, a slot length out of range)
 * is -EPROTO, never an overread; the sleeping and want-space flags are
 * what each side sees. Then two threads, a producer and a consumer with
 * the sleep/wake protocol on eventfds, pass many blobs through one ring:
 * under ThreadSanitizer (ring_tsan) a missing barrier pair is a race. And
 * the two flag protocols as litmus tests on two CPUs: x86 lets a load pass
 * an earlier store, which only the full barriers forbid (TSan cannot see
 * a missing one).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <lake/ring.h>

static void *mem;
static struct lake_ring P, C;	/* one direction: producer's and consumer's view */
static u8 buf[LAKE_RING_DATA_MAX];

static int setup(void **state)
{
	(void)state;
	mem = aligned_alloc(4096, (LAKE_RING_BYTES + 4095) & ~4095);
	assert_non_null(mem);
	memset(mem, 0, LAKE_RING_BYTES);
	lake_ring_init(&P, mem, true);
	lake_ring_init(&C, mem, true);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(mem);
	return 0;
}

/* Both views, and the shared indices, start at @pos. */
static void start_at(u32 pos)
{
	P.pos = P.seen = C.pos = C.seen = pos;
	P.dir->tail = P.dir->head = pos;
}

static void put_u64s(u64 v, u32 n)
{
	u64 blob[LAKE_RING_DATA_MAX / 8];
	u32 i;

	for (i = 0; i < n; i++)
		blob[i] = v + i;
	assert_int_equal(lake_ring_put(&P, blob, n * 8), 0);
}

static void take_u64s(u64 v, u32 n)
{
	u64 *blob = (u64 *)buf;
	u32 len = 0, i;

	assert_int_equal(lake_ring_take(&C, buf, sizeof(buf), &len), 1);
	assert_int_equal(len, n * 8);
	for (i = 0; i < n; i++)
		assert_int_equal(blob[i], v + i);
}

static void test_order_and_wrap(void **state)
{
	u32 i, round;

	(void)state;
	/* From 0, and from just below the u32 wrap: the same behaviour. */
	for (round = 0; round < 2; round++) {
		start_at(round ? UINT32_MAX - 5 : 0);
		for (i = 0; i < 3 * 2 * LAKE_RING_ENTRIES; i++) {
			put_u64s(i * 1000, 1 + i % 300);
			if (i % 3 == 2) {
				take_u64s((i - 2) * 1000, 1 + (i - 2) % 300);
				take_u64s((i - 1) * 1000, 1 + (i - 1) % 300);
				take_u64s(i * 1000, 1 + i % 300);
			}
		}
		assert_false(lake_ring_pending(&C));
	}
	/* The largest blob fits exactly. */
	put_u64s(7, LAKE_RING_DATA_MAX / 8);
	take_u64s(7, LAKE_RING_DATA_MAX / 8);
}

static void test_full_and_empty(void **state)
{
	u32 len, i;

	(void)state;
	start_at(UINT32_MAX - 3);
	assert_int_equal(lake_ring_take(&C, buf, sizeof(buf), &len), 0);
	assert_false(lake_ring_pending(&C));
	for (i = 0; i < LAKE_RING_ENTRIES; i++)
		put_u64s(i, 1);
	assert_int_equal(lake_ring_put(&P, buf, 8), -ENOSPC);
	assert_true(lake_ring_pending(&C));
	take_u64s(0, 1);
	put_u64s(LAKE_RING_ENTRIES, 1);
	assert_int_equal(lake_ring_put(&P, buf, 8), -ENOSPC);
	for (i = 1; i <= LAKE_RING_ENTRIES; i++)
		take_u64s(i, 1);
	assert_int_equal(lake_ring_take(&C, buf, sizeof(buf), &len), 0);
}

static void test_bad_lengths_refused(void **state)
{
	(void)state;
	start_at(0);
	assert_int_equal(lake_ring_put(&P, buf, 0), -EMSGSIZE);
	assert_int_equal(lake_ring_put(&P, buf, 12), -EMSGSIZE);
	assert_int_equal(lake_ring_put(&P, buf, LAKE_RING_DATA_MAX + 8), -EMSGSIZE);
	assert_false(lake_ring_pending(&C));
}

/* What a hostile peer can write: each is -EPROTO, and nothing is read past the ring. */
static void test_hostile_peer(void **state)
{
	static const u32 lens[] = { 0, 4, 13, LAKE_RING_DATA_MAX + 8, UINT32_MAX & ~7u };
	u32 len, i;

	(void)state;
	/* A tail too far ahead of the consumer's head. */
	start_at(100);
	C.dir->tail = 100 + LAKE_RING_ENTRIES + 1;
	assert_int_equal(lake_ring_take(&C, buf, sizeof(buf), &len), -EPROTO);
	/* ... or behind it. */
	start_at(100);
	C.dir->tail = 99;
	assert_int_equal(lake_ring_take(&C, buf, sizeof(buf), &len), -EPROTO);
	/* Exactly full is possible. */
	start_at(UINT32_MAX);
	C.dir->tail = UINT32_MAX + LAKE_RING_ENTRIES;
	for (i = 0; i < LAKE_RING_ENTRIES; i++)
		C.slots[(UINT32_MAX + i) % LAKE_RING_ENTRIES].len = 8;
	for (i = 0; i < LAKE_RING_ENTRIES; i++)
		assert_int_equal(lake_ring_take(&C, buf, sizeof(buf), &len), 1);
	/* Slot lengths out of range, or past the taker's buffer. */
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		start_at(5);
		C.dir->tail = 6;
		C.slots[5 % LAKE_RING_ENTRIES].len = lens[i];
		assert_int_equal(lake_ring_take(&C, buf, sizeof(buf), &len), -EPROTO);
	}
	start_at(5);
	C.dir->tail = 6;
	C.slots[5 % LAKE_RING_ENTRIES].len = 64;
	assert_int_equal(lake_ring_take(&C, buf, 56, &len), -EPROTO);
	/* A consumer's head ahead of the producer's tail, or too far behind. */
	start_at(50);
	P.seen = 50 - LAKE_RING_ENTRIES;	/* looks full: head is read */
	P.dir->head = 51;
	assert_int_equal(lake_ring_put(&P, buf, 8), -EPROTO);
	start_at(50);
	P.seen = 50 - LAKE_RING_ENTRIES;
	P.dir->head = 50 - LAKE_RING_ENTRIES - 1;
	assert_int_equal(lake_ring_put(&P, buf, 8), -EPROTO);
}

static void test_flags(void **state)
{
	(void)state;
	start_at(0);
	assert_false(lake_ring_consumer_sleeps(&P));
	lake_ring_sleeping(&C, true);
	assert_true(lake_ring_consumer_sleeps(&P));
	lake_ring_sleeping(&C, false);
	assert_false(lake_ring_consumer_sleeps(&P));
	lake_ring_cons_flags(&C, LAKE_RING_SLEEPING | LAKE_RING_WATCHED);
	assert_true(lake_ring_consumer_sleeps(&P));
	assert_true(lake_ring_consumer_watched(&P));
	lake_ring_cons_flags(&C, LAKE_RING_SLEEPING);
	assert_false(lake_ring_consumer_watched(&P));
	lake_ring_sleeping(&C, false);
	assert_false(lake_ring_producer_waits(&C));
	lake_ring_want_space(&P, true);
	assert_true(lake_ring_producer_waits(&C));
	lake_ring_want_space(&P, false);
	assert_false(lake_ring_producer_waits(&C));
}

/* --- two threads ------------------------------------------------------------ */

#define STRESS_BLOBS	20000
static int wake_consumer, wake_producer;	/* eventfds */
static u64 stress_errors;

static void efd_wait(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	u64 v;

	poll(&p, 1, 100);
	if (read(fd, &v, sizeof(v)) < 0)
		(void)v;
}

static void efd_signal(int fd)
{
	u64 one = 1;

	if (write(fd, &one, sizeof(one)) != sizeof(one))
		abort();
}

static void *producer(void *arg)
{
	u64 blob[64];
	u32 i, k, n;
	int ret;

	(void)arg;
	for (i = 0; i < STRESS_BLOBS; i++) {
		n = 1 + i % 64;
		for (k = 0; k < n; k++)
			blob[k] = (u64)i << 32 | k;
		for (;;) {
			ret = lake_ring_put(&P, blob, n * 8);
			if (ret != -ENOSPC)
				break;
			lake_ring_want_space(&P, true);
			ret = lake_ring_put(&P, blob, n * 8);
			if (ret != -ENOSPC) {
				lake_ring_want_space(&P, false);
				break;
			}
			efd_wait(wake_producer);
			lake_ring_want_space(&P, false);
		}
		if (ret)
			__atomic_add_fetch(&stress_errors, 1, __ATOMIC_RELAXED);
		if (lake_ring_consumer_sleeps(&P))
			efd_signal(wake_consumer);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	u64 *blob = (u64 *)buf;
	u32 i = 0, k, len;
	int ret;

	(void)arg;
	while (i < STRESS_BLOBS) {
		ret = lake_ring_take(&C, buf, sizeof(buf), &len);
		if (ret < 0) {
			__atomic_add_fetch(&stress_errors, 1, __ATOMIC_RELAXED);
			return NULL;
		}
		if (ret) {
			if (len != (1 + i % 64) * 8)
				__atomic_add_fetch(&stress_errors, 1, __ATOMIC_RELAXED);
			for (k = 0; k < len / 8; k++)
				if (blob[k] != ((u64)i << 32 | k))
					__atomic_add_fetch(&stress_errors, 1, __ATOMIC_RELAXED);
			i++;
			if (lake_ring_producer_waits(&C))
				efd_signal(wake_producer);
			continue;
		}
		lake_ring_sleeping(&C, true);
		if (!lake_ring_pending(&C))
			efd_wait(wake_consumer);
		lake_ring_sleeping(&C, false);
	}
	return NULL;
}

static void test_two_threads(void **state)
{
	pthread_t p, c;

	(void)state;
	start_at(UINT32_MAX - 1000);
	wake_consumer = eventfd(0, EFD_NONBLOCK);
	wake_producer = eventfd(0, EFD_NONBLOCK);
	assert_true(wake_consumer >= 0 && wake_producer >= 0);
	stress_errors = 0;
	assert_int_equal(pthread_create(&c, NULL, consumer, NULL), 0);
	assert_int_equal(pthread_create(&p, NULL, producer, NULL), 0);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	assert_int_equal(stress_errors, 0);
	assert_false(lake_ring_pending(&C));
	close(wake_consumer);
	close(wake_producer);
}

/* --- the full barriers, as litmus tests ----------------------------------- */

/*
 * Each flag protocol is Dekker's: one side stores an index, then reads the
 * other's flag; the other stores its flag, then reads the index. Without
 * the full barrier on either side both reads can miss (x86 keeps a store
 * in its store buffer while a later load runs): the one outcome the
 * protocol forbids, a wakeup nobody sends. Each round releases the two
 * sides together, each delayed by a different few pauses to sweep their
 * alignment, and counts that outcome. It needs two CPUs to show, and can
 * only be missed, never seen wrongly: a run on one CPU passes.
 */
#define LITMUS_ROUNDS	300000
#define LITMUS_SKEW	64

struct litmus {
	const char *name;
	void (*setup)(void);
	bool (*leader)(void);		/* saw the other side's store */
	bool (*follower)(void);		/* the same */
};

static u32 litmus_go, litmus_done;
static bool follower_saw;
static const struct litmus *litmus_now;

static void pause_for(u32 n)
{
	while (n--)
		__builtin_ia32_pause();
}

static void *litmus_follower(void *arg)
{
	u32 r;

	(void)arg;
	for (r = 1; r <= LITMUS_ROUNDS; r++) {
		while (__atomic_load_n(&litmus_go, __ATOMIC_ACQUIRE) != r)
			__builtin_ia32_pause();
		pause_for(r * 13 % LITMUS_SKEW);
		follower_saw = litmus_now->follower();
		__atomic_store_n(&litmus_done, r, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Rounds in which neither side saw the other's store. */
static u32 litmus_run(const struct litmus *l)
{
	pthread_t t;
	u32 r, missed = 0;
	bool saw;

	litmus_now = l;
	litmus_go = litmus_done = 0;
	assert_int_equal(pthread_create(&t, NULL, litmus_follower, NULL), 0);
	for (r = 1; r <= LITMUS_ROUNDS; r++) {
		l->setup();
		__atomic_store_n(&litmus_go, r, __ATOMIC_RELEASE);
		pause_for(r % LITMUS_SKEW);
		saw = l->leader();
		while (__atomic_load_n(&litmus_done, __ATOMIC_ACQUIRE) != r)
			__builtin_ia32_pause();
		missed += !saw && !follower_saw;
	}
	pthread_join(t, NULL);
	return missed;
}

/* Producer puts, then reads the sleeping flag; consumer sets it, then looks. */
static void sleep_setup(void)
{
	start_at(0);
	P.dir->cons_flags = 0;
}

static bool sleep_producer(void)
{
	u64 v = 1;

	if (lake_ring_put(&P, &v, sizeof(v)))
		abort();
	return lake_ring_consumer_sleeps(&P);
}

static bool sleep_consumer(void)
{
	lake_ring_sleeping(&C, true);
	return lake_ring_pending(&C);
}

/* A full ring: the producer says it waits, then looks; the consumer takes, then reads the flag. */
static void space_setup(void)
{
	u64 v = 0;
	u32 i;

	start_at(0);
	for (i = 0; i < LAKE_RING_ENTRIES; i++)
		if (lake_ring_put(&P, &v, sizeof(v)))
			abort();
	C.seen = LAKE_RING_ENTRIES;
	P.dir->prod_flags = 0;
}

static bool space_producer(void)
{
	u64 v = 1;

	lake_ring_want_space(&P, true);
	return lake_ring_put(&P, &v, sizeof(v)) == 0;
}

static bool space_consumer(void)
{
	u64 v;
	u32 len;

	if (lake_ring_take(&C, &v, sizeof(v), &len) != 1)
		abort();
	return lake_ring_producer_waits(&C);
}

static void test_full_barriers(void **state)
{
	static const struct litmus tests[] = {
		{ "sleep/wake", sleep_setup, sleep_producer, sleep_consumer },
		{ "want-space", space_setup, space_producer, space_consumer },
		{ "sleep/wake, consumer first", sleep_setup, sleep_consumer, sleep_producer },
		{ "want-space, consumer first", space_setup, space_consumer, space_producer },
	};
	u32 i, missed, total = 0;

	(void)state;
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		missed = litmus_run(&tests[i]);
		print_message("# %s: %u of %u rounds where neither side saw the other\n",
			      tests[i].name, missed, LITMUS_ROUNDS);
		total += missed;
	}
	assert_int_equal(total, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_order_and_wrap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_and_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_lengths_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_peer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_barriers, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
