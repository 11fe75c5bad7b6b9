// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of LinnOS's routing (examples/linnos/route.c): the decision
 * for each pair of verdicts, the probe clock, and two replicas simulated
 * read by read, one slow for a while, routed on verdicts from their own
 * histories. The simulation is what a user sees: reads leave a replica
 * while it is slow and come back once it is fast again (which they never
 * do without probes: its history would stay slow).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "examples/linnos/route.h"

#define MS	1000000ULL
#define US	1000ULL

static void route_table(void **state)
{
	static const struct {
		u8 home, slow0, slow1;
		bool probe;
		u8 to;
		u32 flags;
	} cases[] = {
		{ 0, 0, 0, false, 0, 0 },
		{ 1, 0, 1, false, 1, 0 },	/* home fast: the other is never asked */
		{ 0, 1, 0, false, 1, LINNOS_ROUTE_REDIRECT },
		{ 1, 1, 0, false, 0, LINNOS_ROUTE_REDIRECT },
		{ 0, 1, 1, false, 0, LINNOS_ROUTE_PRED_SLOW | LINNOS_ROUTE_BOTH_SLOW },
		{ 1, 1, 1, false, 1, LINNOS_ROUTE_PRED_SLOW | LINNOS_ROUTE_BOTH_SLOW },
		{ 0, 1, 0, true, 0, LINNOS_ROUTE_PRED_SLOW | LINNOS_ROUTE_PROBE },
		{ 1, 1, 1, true, 1, LINNOS_ROUTE_PRED_SLOW | LINNOS_ROUTE_PROBE },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		u8 slow[2] = { cases[i].slow0, cases[i].slow1 };
		u32 flags = 0x1;	/* bits the caller set are kept */

		assert_int_equal(linnos_route(cases[i].home, slow, cases[i].probe, &flags),
				 cases[i].to);
		assert_int_equal(flags, cases[i].flags | 0x1);
	}
}

static void history_shifts(void **state)
{
	struct linnos_leg leg;
	u32 k;

	(void)state;
	memset(&leg, 0, sizeof(leg));
	for (k = 1; k <= 6; k++)
		linnos_leg_complete(&leg, 100 * k, k, k * MS);
	for (k = 0; k < LINNOS_HISTORY; k++) {
		assert_int_equal(leg.hist.latency_us[k], 100 * (6 - k));
		assert_int_equal(leg.hist.pending_at_issue[k], 6 - k);
	}
	assert_int_equal(leg.hist_ns, 6 * MS);
}

static void probe_clock(void **state)
{
	struct linnos_leg leg;

	(void)state;
	memset(&leg, 0, sizeof(leg));
	/* A replica never read from may be probed. */
	assert_true(linnos_leg_take_probe(&leg, 1 * MS));
	assert_false(linnos_leg_take_probe(&leg, 2 * MS));
	linnos_leg_complete(&leg, 3000, 0, 20 * MS);
	/* A fresh history is not probed, however long ago the last probe was. */
	assert_false(linnos_leg_take_probe(&leg, 29 * MS));
	assert_true(linnos_leg_take_probe(&leg, 30 * MS));
	/* One probe per 10 ms while the history stays old. */
	assert_false(linnos_leg_take_probe(&leg, 39 * MS));
	assert_true(linnos_leg_take_probe(&leg, 40 * MS));
	/* A completion stamped after the caller's clock is not old. */
	linnos_leg_complete(&leg, 20, 0, 100 * MS);
	assert_false(linnos_leg_take_probe(&leg, 99 * MS));
}

/*
 * Two replicas, reads every 50 us with alternating homes; replica 0 takes
 * 3 ms from 100 to 150 ms, everything else 20 us. The verdict is slow when
 * two of the four history entries reach 1.5 ms (the rule the shipped
 * weights are held to in test_linnos). Counts, for reads homed at replica 0,
 * how many went home during the burst and from 50 ms after it.
 */
struct sim {
	struct linnos_leg leg[2];
	struct { u64 done; u32 lat; u8 d; } fly[256];
	int nfly;
	u32 home0_during, away_during, home0_after, away_after, probes_during;
};

static u32 latency(u8 d, u64 t)
{
	return d == 0 && t >= 100 * MS && t < 150 * MS ? 3000 : 20;
}

static u8 verdict(const struct linnos_leg *leg)
{
	int k, n = 0;

	for (k = 0; k < LINNOS_HISTORY; k++)
		n += leg->hist.latency_us[k] >= 1500;
	return n >= 2;
}

static void complete_until(struct sim *s, u64 now)
{
	int i = 0;

	while (i < s->nfly) {
		if (s->fly[i].done > now) {
			i++;
			continue;
		}
		linnos_leg_complete(&s->leg[s->fly[i].d], s->fly[i].lat, 0, s->fly[i].done);
		s->fly[i] = s->fly[--s->nfly];
	}
}

static void simulate(struct sim *s, bool probes)
{
	u64 t;
	u32 n = 0;

	memset(s, 0, sizeof(*s));
	for (t = 1 * MS; t < 300 * MS; t += 50 * US, n++) {
		u8 home = n & 1, slow[2], d;
		u32 flags = 0;
		bool probe;

		complete_until(s, t);
		slow[0] = verdict(&s->leg[home]);
		slow[1] = verdict(&s->leg[!home]);
		probe = probes && slow[0] && linnos_leg_take_probe(&s->leg[home], t);
		d = linnos_route(home, slow, probe, &flags);
		assert_true(s->nfly < 256);
		s->fly[s->nfly].lat = latency(d, t);
		s->fly[s->nfly].done = t + s->fly[s->nfly].lat * US;
		s->fly[s->nfly++].d = d;
		if (home != 0)
			continue;
		/* The first 5 ms of the burst are unavoidable: no slow read has completed. */
		if (t >= 105 * MS && t < 150 * MS) {
			*(d == 0 ? &s->home0_during : &s->away_during) += 1;
			s->probes_during += !!(flags & LINNOS_ROUTE_PROBE);
		} else if (t >= 200 * MS) {
			*(d == 0 ? &s->home0_after : &s->away_after) += 1;
		}
	}
}

static void slow_replica_probed_and_recovers(void **state)
{
	struct sim s;

	(void)state;
	simulate(&s, true);
	/* While slow, reads leave it: only probes (one per 10 ms) go home. */
	assert_true(s.away_during > 400);
	assert_int_equal(s.home0_during, s.probes_during);
	assert_in_range(s.probes_during, 1, 45 / 10 + 1);
	/*
	 * Three fast probes, 10 ms apart, leave fewer than two slow entries:
	 * 50 ms after the burst every read homed there is back.
	 */
	assert_int_equal(s.away_after, 0);
	assert_true(s.home0_after > 900);
}

static void without_probes_it_never_recovers(void **state)
{
	struct sim s;

	(void)state;
	simulate(&s, false);
	assert_int_equal(s.home0_after, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(route_table),
		cmocka_unit_test(history_shifts),
		cmocka_unit_test(probe_clock),
		cmocka_unit_test(slow_replica_probed_and_recovers),
		cmocka_unit_test(without_probes_it_never_recovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
