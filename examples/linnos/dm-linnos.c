// SPDX-License-Identifier: GPL-2.0
/*
 * lake_linnos: LinnOS (Hao et al., OSDI 2020) as a device-mapper target on a
 * stock kernel. Two replicas hold the same data; for every read a small
 * neural network predicts from the recent behaviour of a replica whether
 * the read will be slow there, and a read predicted slow goes to the other.
 *
 *	dmsetup create NAME --table \
 *	  "0 SECTORS linnos /dev/PRIMARY /dev/REPLICA [mode=M] [threshold=US] [model=FILE]"
 *
 * The replicas (legs), as a user of dm-raid1 expects of a mirror:
 * - A write goes to both legs (dm's bio to one, one clone to the other) and
 *   completes when both have. It succeeds when it reached at least one
 *   healthy leg, and fails when no healthy leg took it (a write that
 *   fails on both leaves its range undefined on each, as any failed write).
 * - A leg that fails a write the other leg took is failed: from then on no
 *   read goes there and writes skip it, dm_table_event() is raised, the log
 *   says so, and status shows it (legs AD: A alive, D failed). The last
 *   healthy leg is never failed (a write it loses fails instead), so the
 *   legs never silently differ. A failed leg stays failed until the table
 *   is reloaded: there is no resync, the user copies the data back.
 * - A read that fails is retried once on the other leg, if that one is
 *   healthy; only when both fail does the reader see the error. A read
 *   error does not fail the leg (its copy is not known to be stale). The
 *   failed read's latency enters no history. With one leg failed there is
 *   nothing to choose: every read goes to the other, unpredicted.
 * - Flushes go to both healthy legs. Discards are not supported.
 * I/O is split at 4 KiB (max_io_len): each read has one home, below.
 *
 * Homes. Each read has a home replica, alternating in 4 KiB stripes of
 * the target (PRIMARY holds the even stripes' home, REPLICA the odd), so
 * that both replicas serve reads and their load is even while nothing is
 * predicted slow.
 *
 * Fresh histories (route.h). A history changes only when a read completes
 * on that replica, and reads predicted slow are sent away from it: left
 * alone, a replica once predicted slow would get no reads, keep its slow
 * history and never be chosen again. So a read predicted slow at home still
 * goes home, as a probe, when home's history is older than 10 ms and no
 * probe went there in the last 10 ms. Guaranteed: while reads arrive for a
 * replica, its history is at most about 10 ms (plus one read) old; probes
 * cost at most one read per replica per 10 ms (`probes` in the status).
 *
 * The features. Each replica keeps the LinnOS history: the latency and the
 * pending count at issue of its last 4 completed reads, and its current
 * pending count (reads and writes sent to it, not completed). A read is
 * encoded against its home (31 digits, model.h) and predicted; only when
 * home is predicted slow is the other replica encoded and predicted too.
 * Predicted fast there, the read goes there (redirected); predicted slow
 * on both, it stays at home (both_slow): the other replica is no better
 * bet, and home keeps the load it was given. A probe skips the other
 * replica's prediction. Its completion records the
 * observed latency in that replica's history and in the feature registry
 * (lake/features.h, one registry per replica), from which the trace
 * exporter (stats.c) reads the training data out.
 *
 * Accuracy online is judged on the device a read actually went to, against
 * the slow threshold: a true slow, true fast, false submit (predicted fast,
 * was slow) or false revoke (predicted slow, was fast). A redirected read
 * counts as the other replica's (predicted fast) prediction; its home's
 * verdict is never checked, since the read did not go there, so these
 * counters are not LinnOS's (which judge every prediction): probes are the
 * only home verdicts of slow predictions that get checked. Mode shadow
 * judges every prediction as LinnOS does, on live reads: each read is
 * predicted at home and goes home whatever the verdict. The offline
 * evaluation (train.py) scores the model on a trace. The
 * latency histogram is what the reader waited, from map() to completion,
 * prediction and batching included; the histories hold the replica's own
 * service time, from issue to completion.
 *
 * Where prediction runs (mode). map() runs in the submitter's context and
 * must not sleep, while a GPU round trip through laked sleeps. So:
 * - cpu: map() predicts inline on the CPU (linnos_infer_batch: SIMD where
 *   the CPU has it) and remaps the read at once.
 * - gpu and auto: map() encodes both replicas' features and queues the read
 *   to a worker (an unbound, WQ_MEM_RECLAIM workqueue); the worker takes
 *   what is queued, up to LINNOS_MAX_BATCH reads (two vectors each), asks
 *   the policy (lake/fallback.h, named linnosN) for a side and runs the
 *   batch there, then submits the reads. Batches form from reads that
 *   arrive while the previous batch runs, so an idle target adds no
 *   window to a lone read. gpu forces the policy to the GPU (it still
 *   answers CPU when laked is gone, and when the GPU side failed: it
 *   trips, and probes its way back as auto does); auto starts from LAKE's crossover (the
 *   GPU from 8 vectors) and, after a "calibrate" message, follows the
 *   measured times instead.
 * - off: no prediction; every read goes to its home.
 * - shadow: cpu's inline prediction of home only, counted and judged, never
 *   acted on; every read goes to its home (accuracy as LinnOS measures it).
 *
 * No I/O is lost to prediction. Without a model every read goes home. A GPU batch that fails (laked killed mid-batch, a timeout, an
 * error) is reported to the policy, which trips to the CPU, and the same
 * batch is predicted on the CPU; the reads then go out as usual. The GPU
 * batch runs as a job of its own (linnos_gpu_wq, its own buffers and model
 * reference); the worker waits for it at most gpu_deadline_ms (a module
 * parameter, 30 ms), then counts it late and failed and predicts on the
 * CPU. A late job runs on, bounded by lakelib's timeout_ms, and its result
 * is dropped; until it ends, batches go to the CPU (one GPU batch in
 * flight). The worker never fails a read: whatever happens, each one is
 * submitted to a replica. Removal: dm suspends the device first and waits for every
 * bio it handed us, queued ones included, so the target is destroyed with
 * nothing in flight; a live target holds the module.
 *
 * The model. Weight files are loaded with request_firmware_direct() (from
 * /lib/firmware) at table load or by "model FILE" message; a file the parser
 * refuses leaves the previous model in place and says why in the log. A swap
 * is RCU for the inline path; the worker, its GPU job, calibration and the
 * debugfs tools take a reference (linnos_model_ref) that outlives the RPC,
 * so no read ever sees a freed model and no swap or status waits for laked.
 * The GPU's copy of the weights is refreshed by the first GPU batch after a
 * swap (gpu.c: the loaded model is compared with the batch's).
 *
 * Messages (dmsetup message NAME 0 ...): "mode auto|cpu|gpu|off|shadow",
 * "threshold US" (for judging predictions; the model's own until set),
 * "model FILE", "model none", "reset" (counters), and "calibrate" (time
 * both sides for the policy). Bad ones get -EINVAL and a log line. Status:
 * dmsetup status (one line), and debugfs lake/linnos/NAME/status (detail),
 * trace (the exporter, CSV) and bench (per-batch times on each side).
 *
 * Limits. Two replicas, no resync (above). The pending count is of
 * this target's I/O only, not of other users of the replica. Features are
 * taken when the read is mapped, while the trace records the history at
 * issue; on the inline path those are the same moment. Under memory
 * pressure laked may be slow to make progress (it may even fault on a
 * filesystem above this target): the deadline bounds what that costs a read,
 * and the target's calls into lake run in a NOIO scope (gpu.c), so that
 * their own allocations never wait for I/O. No nowait I/O (no
 * DM_TARGET_NOWAIT): a write that would block on one leg cannot be failed
 * back whole once the other has it, so dm refuses REQ_NOWAIT bios with
 * EOPNOTSUPP; on 6.1 that includes io_uring's polled I/O, which 6.12
 * serves. Polled bios are polled by dm; the write's clone is never polled.
 */
#include <linux/firmware.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "target.h"

#define DM_MSG_PREFIX		LINNOS_NAME
#define REG_CAPACITY		32768	/* records kept per replica for the exporter */
#define REG_MAX_OPEN		1024	/* reads in flight recorded per replica */
#define DEFAULT_THRESHOLD_US	1000
#define CALIB_ROUNDS		3
/* LAKE's NN batching: a 5 us window, the GPU from 8 vectors (until calibrated). */
#define FB_WINDOW_NS		5000
#define FB_START_CROSSOVER	8
/* Reads alternate their home replica in 4 KiB stripes. */
#define LINNOS_STRIPE_SHIFT	3

struct workqueue_struct *linnos_wq;
static struct workqueue_struct *linnos_gpu_wq;
static atomic_t linnos_ids = ATOMIC_INIT(0);

/*
 * How long a worker batch waits for the GPU before its reads are predicted
 * on the CPU and sent (ms). A healthy round trip is tens of us on a GPU and
 * about 1 ms (p99.9 10 ms) on laked's host device under TCG; 30 ms is three
 * times that worst healthy case, so sound batches do not trip the policy,
 * and it bounds what a wedged laked adds to a read to the length of one
 * slow-replica burst, not lakelib's timeout_ms (10 s by default).
 */
static unsigned int gpu_deadline_ms = 30;

static int deadline_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 10000);
}

static const struct kernel_param_ops deadline_ops = {
	.set = deadline_set,
	.get = param_get_uint,
};
module_param_cb(gpu_deadline_ms, &deadline_ops, &gpu_deadline_ms, 0644);
MODULE_PARM_DESC(gpu_deadline_ms, "a worker batch's wait for the GPU, ms (1..10000, default 30)");

static const struct lake_feature_desc linnos_schema[LINNOS_NR_FEATURES] = {
	[LINNOS_F_PENDING] = { "pending", sizeof(u32), 1 },
	[LINNOS_F_LAT_HIST] = { "lat_hist_us", sizeof(u32), LINNOS_HISTORY },
	[LINNOS_F_PEND_HIST] = { "pend_hist", sizeof(u32), LINNOS_HISTORY },
	[LINNOS_F_LATENCY] = { "latency_us", sizeof(u32), 1 },
	[LINNOS_F_ROUTE] = { "route", sizeof(u32), 1 },
};

/*
 * Load FILE, or drop the model for "none". A file that cannot be read or
 * parsed leaves the current model in place. Process context.
 */
static int set_model(struct linnos_target *lt, const char *name)
{
	struct linnos_model *m = NULL, *old;
	const struct firmware *fw;
	const char *why = "?";
	int ret;

	if (strcmp(name, "none")) {
		if (!linnos_model_name_ok(name)) {
			DMERR("%s: bad model file name (a relative path of letters, digits, '._-/')",
			      lt->fb_name);
			return -EINVAL;
		}
		ret = request_firmware_direct(&fw, name, NULL);
		if (ret) {
			DMERR("%s: cannot read /lib/firmware/%s: %d; model unchanged",
			      lt->fb_name, name, ret);
			return ret;
		}
		ret = linnos_model_parse(fw->data, fw->size, &m, &why);
		release_firmware(fw);
		if (ret) {
			DMERR("%s: model %s refused: %s; model unchanged", lt->fb_name, name, why);
			return ret;
		}
	}
	mutex_lock(&lt->model_lock);
	old = rcu_dereference_protected(lt->model, lockdep_is_held(&lt->model_lock));
	rcu_assign_pointer(lt->model, m);
	if (m && !lt->threshold_set)
		WRITE_ONCE(lt->threshold_us, linnos_model_threshold_us(m));
	strscpy(lt->model_name, m ? name : "none", sizeof(lt->model_name));
	mutex_unlock(&lt->model_lock);
	synchronize_rcu();
	if (old)
		linnos_model_free(old);
	DMINFO("%s: model %s%s", lt->fb_name, lt->model_name,
	       m ? (linnos_model_variant(m) == LINNOS_NN ? " (NN)" :
		    linnos_model_variant(m) == LINNOS_NN1 ? " (NN+1)" : " (NN+2)") : "");
	return 0;
}

static int set_mode(struct linnos_target *lt, int mode)
{
	static const enum lake_policy_mode pol[LINNOS_NR_MODES] = {
		[LINNOS_MODE_AUTO] = LAKE_POLICY_AUTO,
		[LINNOS_MODE_CPU] = LAKE_POLICY_CPU,
		[LINNOS_MODE_GPU] = LAKE_POLICY_GPU,
		[LINNOS_MODE_OFF] = LAKE_POLICY_CPU,
		[LINNOS_MODE_SHADOW] = LAKE_POLICY_CPU,
	};
	int ret = lake_fallback_set_mode(lt->fb, pol[mode]);

	if (!ret)
		WRITE_ONCE(lt->mode, mode);
	return ret;
}

/* The digits for a read issued to @d now. */
static void encode_for(struct linnos_dev *d, u8 in[LINNOS_INPUTS])
{
	struct linnos_history h;
	unsigned long flags;
	u32 pending;

	spin_lock_irqsave(&d->lock, flags);
	h = d->leg.hist;
	pending = atomic_read(&d->pending);
	spin_unlock_irqrestore(&d->lock, flags);
	linnos_encode(&h, pending, in);
}

/* Send @bio (its sector already target-relative) to replica @d. */
static void issue(struct linnos_target *lt, struct bio *bio, struct linnos_io *io, u8 d)
{
	struct linnos_dev *dv = &lt->dev[d];
	unsigned long flags;
	u32 pending;

	/*
	 * Never to a failed leg; one may have failed since the read was routed.
	 * At most one leg is failed, so the other is healthy.
	 */
	if (!linnos_leg_ok(lt, d)) {
		d = !d;
		dv = &lt->dev[d];
		io->flags &= ~(LINNOS_IO_PREDICTED | LINNOS_IO_PRED_SLOW);
	}
	io->dev = d;
	atomic64_inc(&lt->st.leg_reads[d]);
	bio_set_dev(bio, dv->dm->bdev);
	spin_lock_irqsave(&dv->lock, flags);
	pending = atomic_inc_return(&dv->pending) - 1;
	io->pending_at_issue = pending;
	io->vec = lake_features_begin(dv->reg);
	if (io->vec)
		lake_features_capture(dv->reg, io->vec, LINNOS_F_PENDING, &pending,
				      sizeof(pending));
	spin_unlock_irqrestore(&dv->lock, flags);
	io->start_ns = ktime_get_ns();
}

/* A read predicted slow at @d's: whether it goes there anyway, as a probe. */
static bool take_probe(struct linnos_dev *d)
{
	unsigned long flags;
	bool probe;

	spin_lock_irqsave(&d->lock, flags);
	probe = linnos_leg_take_probe(&d->leg, ktime_get_ns());
	spin_unlock_irqrestore(&d->lock, flags);
	return probe;
}

/*
 * The route for one read from its predictions: slow[0] for its home,
 * slow[1] for the other replica (consulted only when home is slow and no
 * probe of home was taken).
 */
static u8 route(struct linnos_target *lt, struct linnos_io *io, const u8 slow[2], bool probe)
{
	u8 d = linnos_route(io->home, slow, probe, &io->flags);

	io->flags |= LINNOS_IO_PREDICTED;
	atomic64_inc(&lt->st.predicted);
	if (slow[0])
		atomic64_inc(&lt->st.predicted_slow);
	if (io->flags & LINNOS_ROUTE_BOTH_SLOW)
		atomic64_inc(&lt->st.both_slow);
	if (io->flags & LINNOS_IO_REDIRECTED)
		atomic64_inc(&lt->st.redirected);
	if (io->flags & LINNOS_IO_PROBE)
		atomic64_inc(&lt->st.probes);
	return d;
}

/* Replica @d's verdict on the CPU, its input encoded into @in; timed and counted. */
static u8 infer_cpu(struct linnos_target *lt, const struct linnos_model *m, u8 d, u8 *in)
{
	u64 t0 = ktime_get_ns();
	u8 slow;

	encode_for(&lt->dev[d], in);
	linnos_infer_batch(m, in, 1, &slow);
	atomic64_add(ktime_get_ns() - t0, &lt->st.cpu_ns);
	atomic64_inc(&lt->st.cpu_inferences);
	return slow;
}

/* Inline prediction in map(): home, then the other replica if need be. */
static u8 predict_inline(struct linnos_target *lt, struct linnos_io *io)
{
	const struct linnos_model *m;
	u8 slow[2] = { 0, 0 };
	u8 d = io->home;
	bool probe = false;

	rcu_read_lock();
	m = rcu_dereference(lt->model);
	if (m) {
		slow[0] = infer_cpu(lt, m, io->home, io->in[0]);
		if (slow[0])
			probe = take_probe(&lt->dev[io->home]);
		if (slow[0] && !probe)
			slow[1] = infer_cpu(lt, m, !io->home, io->in[1]);
		d = route(lt, io, slow, probe);
	}
	rcu_read_unlock();
	return d;
}

/* Shadow mode: home's verdict, judged at completion; the read goes home. */
static u8 predict_shadow(struct linnos_target *lt, struct linnos_io *io)
{
	const struct linnos_model *m;
	u8 slow;

	rcu_read_lock();
	m = rcu_dereference(lt->model);
	if (m) {
		slow = infer_cpu(lt, m, io->home, io->in[0]);
		io->flags |= LINNOS_IO_PREDICTED | (slow ? LINNOS_IO_PRED_SLOW : 0);
		atomic64_inc(&lt->st.predicted);
		if (slow)
			atomic64_inc(&lt->st.predicted_slow);
	}
	rcu_read_unlock();
	return io->home;
}

/*
 * The other leg's copy of a write completed: its status goes in the per-bio
 * data, and dm's bio (held by bio_inc_remaining() in map_write) completes
 * when both have; linnos_end_io() then sees both legs' statuses.
 */
static void write_clone_end(struct bio *clone)
{
	struct bio *bio = clone->bi_private;
	struct linnos_io *io = dm_per_bio_data(bio, sizeof(*io));

	atomic_dec(&io->lt->dev[!io->dev].pending);
	io->error = clone->bi_status;
	bio_put(clone);
	bio_endio(bio);
}

/*
 * dm's bio goes to the first healthy leg, one clone to the other if it is
 * healthy too. One bio from the set per write, submitted before map()
 * returns (so before dm maps the next piece), keeps the pool's progress.
 */
static int map_write(struct linnos_target *lt, struct bio *bio, struct linnos_io *io)
{
	u8 a = linnos_leg_ok(lt, 0) ? 0 : 1;
	struct bio *clone;

	io->flags = LINNOS_IO_WRITE;
	io->lt = lt;
	io->dev = a;
	io->error = BLK_STS_OK;
	atomic64_inc(&lt->st.writes);
	if (linnos_leg_ok(lt, !a)) {
		clone = bio_alloc_clone(lt->dev[!a].dm->bdev, bio, GFP_NOIO, &lt->bs);
		if (!clone)
			return DM_MAPIO_KILL;
		bio_clear_polled(clone);	/* dm polls its own bio, not this one */
		clone->bi_end_io = write_clone_end;
		clone->bi_private = bio;
		io->flags |= LINNOS_IO_CLONED;
		bio_inc_remaining(bio);
		atomic_inc(&lt->dev[!a].pending);
		submit_bio_noacct(clone);
	}
	atomic_inc(&lt->dev[a].pending);
	bio_set_dev(bio, lt->dev[a].dm->bdev);
	return DM_MAPIO_REMAPPED;
}

/*
 * Leg @d lost a write the other leg took: fail it, unless the other has
 * failed already (the last leg is never failed: a write it loses fails).
 */
static void fail_leg(struct linnos_target *lt, u8 d)
{
	unsigned long flags;
	bool now = false;

	spin_lock_irqsave(&lt->fail_lock, flags);
	if (!lt->dev[d].failed && !lt->dev[!d].failed) {
		WRITE_ONCE(lt->dev[d].failed, true);
		now = true;
	}
	spin_unlock_irqrestore(&lt->fail_lock, flags);
	if (!now)
		return;
	DMERR("%s: leg %u (%s) failed: a write to it failed; reads and writes skip it until the table is reloaded (no resync)",
	      lt->fb_name, d, lt->dev[d].dm->name);
	queue_work(linnos_wq, &lt->event_work);
}

/* dm_table_event() takes a mutex: process context. */
static void linnos_event_work(struct work_struct *w)
{
	struct linnos_target *lt = container_of(w, struct linnos_target, event_work);

	dm_table_event(lt->ti->table);
}

/*
 * A write's completion, with dm's bio's status in *error and the clone's
 * in io->error: it succeeds when it reached a leg that is healthy now.
 */
static int write_end(struct linnos_target *lt, struct linnos_io *io, blk_status_t *error)
{
	blk_status_t st[LINNOS_NR_DEVS];
	bool sent[LINNOS_NR_DEVS] = { false, false };
	bool ok = false;
	u8 d;

	atomic_dec(&lt->dev[io->dev].pending);
	sent[io->dev] = true;
	st[io->dev] = *error;
	if (io->flags & LINNOS_IO_CLONED) {
		sent[!io->dev] = true;
		st[!io->dev] = io->error;
	}
	for (d = 0; d < LINNOS_NR_DEVS; d++) {
		if (!sent[d] || st[d] == BLK_STS_OK)
			continue;
		atomic64_inc(&lt->st.write_errors);
		atomic64_inc(&lt->st.leg_write_errors[d]);
		if (sent[!d] && st[!d] == BLK_STS_OK)
			fail_leg(lt, d);
	}
	for (d = 0; d < LINNOS_NR_DEVS; d++)
		if (sent[d] && st[d] == BLK_STS_OK && linnos_leg_ok(lt, d))
			ok = true;
	if (ok)
		*error = BLK_STS_OK;
	else if (*error == BLK_STS_OK)
		*error = io->error != BLK_STS_OK ? io->error : BLK_STS_IOERR;
	return DM_ENDIO_DONE;
}

/*
 * A read that failed: its latency says nothing of the leg's speed, so it
 * enters neither history nor registry. It goes once to the other leg if
 * that one is healthy, from the retry worker (end_io may run in interrupt).
 */
static int read_error(struct linnos_target *lt, struct bio *bio, struct linnos_io *io)
{
	struct linnos_dev *dv = &lt->dev[io->dev];
	unsigned long flags;

	spin_lock_irqsave(&dv->lock, flags);
	atomic_dec(&dv->pending);
	if (io->vec)
		lake_features_abort(dv->reg, io->vec);
	spin_unlock_irqrestore(&dv->lock, flags);
	io->vec = NULL;
	atomic64_inc(&lt->st.leg_read_errors[io->dev]);
	if ((io->flags & LINNOS_IO_RETRIED) || !linnos_leg_ok(lt, !io->dev)) {
		atomic64_inc(&lt->st.read_failed);
		return DM_ENDIO_DONE;
	}
	io->flags |= LINNOS_IO_RETRIED;
	io->flags &= ~(LINNOS_IO_PREDICTED | LINNOS_IO_PRED_SLOW);
	spin_lock_irqsave(&lt->retry_lock, flags);
	bio_list_add(&lt->retries, bio);
	spin_unlock_irqrestore(&lt->retry_lock, flags);
	queue_work(linnos_wq, &lt->retry_work);
	return DM_ENDIO_INCOMPLETE;
}

/* Failed reads, restored as mapped, to the leg they have not tried. */
static void linnos_retry_work(struct work_struct *w)
{
	struct linnos_target *lt = container_of(w, struct linnos_target, retry_work);
	struct bio_list list;
	unsigned long flags;
	struct bio *bio;

	spin_lock_irqsave(&lt->retry_lock, flags);
	list = lt->retries;
	bio_list_init(&lt->retries);
	spin_unlock_irqrestore(&lt->retry_lock, flags);
	while ((bio = bio_list_pop(&list))) {
		struct linnos_io *io = dm_per_bio_data(bio, sizeof(*io));

		bio->bi_iter = io->iter;
		bio->bi_flags = io->bi_flags;
		bio->bi_status = BLK_STS_OK;
		bio_clear_polled(bio);
		atomic64_inc(&lt->st.retried);
		issue(lt, bio, io, !io->dev);
		submit_bio_noacct(bio);
	}
}

static int linnos_map(struct dm_target *ti, struct bio *bio)
{
	struct linnos_target *lt = ti->private;
	struct linnos_io *io = dm_per_bio_data(bio, sizeof(*io));
	const struct linnos_model *m;
	unsigned long flags;
	int mode;
	u8 d;

	io->flags = 0;
	io->vec = NULL;
	if (!bio_sectors(bio)) {
		/* Empty flushes: dm sends one per replica (num_flush_bios). */
		d = dm_bio_get_target_bio_nr(bio) % LINNOS_NR_DEVS;
		/* A failed leg's goes to the other leg: nothing is written there. */
		bio_set_dev(bio, lt->dev[linnos_leg_ok(lt, d) ? d : !d].dm->bdev);
		return DM_MAPIO_REMAPPED;
	}
	bio->bi_iter.bi_sector = dm_target_offset(ti, bio->bi_iter.bi_sector);
	if (op_is_write(bio_op(bio)))
		return map_write(lt, bio, io);
	if (bio_op(bio) != REQ_OP_READ)
		return DM_MAPIO_KILL;

	io->flags = LINNOS_IO_READ;
	io->map_ns = ktime_get_ns();
	io->iter = bio->bi_iter;
	io->bi_flags = bio->bi_flags;
	io->home = (bio->bi_iter.bi_sector >> LINNOS_STRIPE_SHIFT) & 1;
	atomic64_inc(&lt->st.reads);
	mode = READ_ONCE(lt->mode);
	/* One healthy leg left: nothing to choose, and issue() picks it. */
	if (!linnos_leg_ok(lt, 0) || !linnos_leg_ok(lt, 1))
		mode = LINNOS_MODE_OFF;
	if (mode == LINNOS_MODE_AUTO || mode == LINNOS_MODE_GPU) {
		rcu_read_lock();
		m = rcu_dereference(lt->model);
		rcu_read_unlock();
		if (m) {
			encode_for(&lt->dev[io->home], io->in[0]);
			encode_for(&lt->dev[!io->home], io->in[1]);
			spin_lock_irqsave(&lt->qlock, flags);
			bio_list_add(&lt->queue, bio);
			spin_unlock_irqrestore(&lt->qlock, flags);
			queue_work(linnos_wq, &lt->work);
			return DM_MAPIO_SUBMITTED;
		}
	}
	if (mode == LINNOS_MODE_CPU)
		d = predict_inline(lt, io);
	else if (mode == LINNOS_MODE_SHADOW)
		d = predict_shadow(lt, io);
	else
		d = io->home;
	issue(lt, bio, io, d);
	return DM_MAPIO_REMAPPED;
}

/* The current model with a reference, for a user that sleeps with it. */
struct linnos_model *linnos_model_ref(struct linnos_target *lt)
{
	struct linnos_model *m;

	rcu_read_lock();
	m = rcu_dereference(lt->model);
	/* A swap frees the old model only after a grace period: m holds one. */
	if (m)
		linnos_model_get(m);
	rcu_read_unlock();
	return m;
}

/* The GPU job (linnos_gpu_wq): one batch through lake, for the worker. */
static void gpu_job_run(struct work_struct *w)
{
	struct linnos_gpu_job *job = container_of(w, struct linnos_gpu_job, work);
	struct linnos_target *lt = container_of(job, struct linnos_target, job);
	unsigned long flags;
	u64 t0 = ktime_get_ns();
	int ret;

	mutex_lock(&lt->gpu_lock);
	ret = linnos_gpu_infer(lt, job->m, job->in[0], job->n, job->slow);
	mutex_unlock(&lt->gpu_lock);
	linnos_model_free(job->m);
	job->m = NULL;
	spin_lock_irqsave(&job->lock, flags);
	job->ret = ret;
	job->ns = ktime_get_ns() - t0;
	job->finished = true;
	/* Under the lock: a worker that sees finished may reuse the job. */
	if (job->abandoned)
		WRITE_ONCE(job->busy, false);
	else
		complete(&job->done);
	spin_unlock_irqrestore(&job->lock, flags);
}

/*
 * @nv vectors of lt->batch_in on the GPU, waited for at most
 * gpu_deadline_ms: 0 with the verdicts in @slow, -ETIMEDOUT (the job goes
 * on, its result will be dropped) or the job's error. Worker only.
 */
static int gpu_batch(struct linnos_target *lt, struct linnos_model *m, u32 nv, u8 *slow)
{
	struct linnos_gpu_job *job = &lt->job;
	unsigned long flags;
	int ret;

	memcpy(job->in, lt->batch_in, nv * LINNOS_INPUTS);
	job->n = nv;
	linnos_model_get(m);
	job->m = m;
	job->finished = false;
	job->abandoned = false;
	reinit_completion(&job->done);
	WRITE_ONCE(job->busy, true);
	queue_work(linnos_gpu_wq, &job->work);
	wait_for_completion_timeout(&job->done, msecs_to_jiffies(READ_ONCE(gpu_deadline_ms)));
	spin_lock_irqsave(&job->lock, flags);
	if (!job->finished) {
		job->abandoned = true;
		spin_unlock_irqrestore(&job->lock, flags);
		atomic64_inc(&lt->st.gpu_late);
		return -ETIMEDOUT;
	}
	spin_unlock_irqrestore(&job->lock, flags);
	ret = job->ret;
	if (!ret)
		memcpy(slow, job->slow, nv);
	WRITE_ONCE(job->busy, false);
	return ret;
}

/*
 * Predict one batch of queued reads, on the side the policy picks; the CPU
 * while an earlier GPU batch given up on still runs.
 */
static void predict_batch(struct linnos_target *lt, struct linnos_model *m,
			  struct bio **bios, u32 n, u8 *slow)
{
	u8 (*in)[LINNOS_INPUTS] = lt->batch_in;
	enum lake_target side = LAKE_TARGET_CPU;
	u32 i, nv = 2 * n;
	u64 t0, ns;
	int ret;

	for (i = 0; i < n; i++) {
		struct linnos_io *io = dm_per_bio_data(bios[i], sizeof(*io));

		memcpy(in[2 * i], io->in[0], LINNOS_INPUTS);
		memcpy(in[2 * i + 1], io->in[1], LINNOS_INPUTS);
	}
	if (!READ_ONCE(lt->job.busy))
		side = lake_fallback_choose(lt->fb, nv);
	t0 = ktime_get_ns();
	if (side == LAKE_TARGET_GPU) {
		ret = gpu_batch(lt, m, nv, slow);
		ns = ktime_get_ns() - t0;
		if (!ret) {
			lake_fallback_report_gpu(lt->fb, nv, ns);
			atomic64_inc(&lt->st.gpu_batches);
			atomic64_add(nv, &lt->st.gpu_inferences);
			atomic64_add(ns, &lt->st.gpu_ns);
			for (i = 0; i < n; i++) {
				struct linnos_io *io = dm_per_bio_data(bios[i], sizeof(*io));

				io->flags |= LINNOS_IO_GPU;
			}
			return;
		}
		atomic64_inc(&lt->st.gpu_failures);
		lake_fallback_report_gpu_error(lt->fb);
		t0 = ktime_get_ns();
	}
	linnos_infer_batch(m, in[0], nv, slow);
	ns = ktime_get_ns() - t0;
	lake_fallback_report_cpu(lt->fb, nv, ns);
	atomic64_add(nv, &lt->st.cpu_inferences);
	atomic64_add(ns, &lt->st.cpu_ns);
}

/*
 * The worker: batches from the queue until it is empty. Each batch holds a
 * reference to the model, not model_lock, so swaps and status never wait
 * for laked.
 */
static void linnos_work(struct work_struct *w)
{
	struct linnos_target *lt = container_of(w, struct linnos_target, work);
	u8 *slow = lt->batch_slow;
	struct bio *bios[LINNOS_MAX_BATCH];
	struct linnos_model *m;
	unsigned long flags;
	u32 n, i;

	for (;;) {
		spin_lock_irqsave(&lt->qlock, flags);
		for (n = 0; n < LINNOS_MAX_BATCH; n++) {
			bios[n] = bio_list_pop(&lt->queue);
			if (!bios[n])
				break;
		}
		spin_unlock_irqrestore(&lt->qlock, flags);
		if (!n)
			break;
		atomic64_inc(&lt->st.worker_batches);
		m = linnos_model_ref(lt);
		if (m)
			predict_batch(lt, m, bios, n, slow);
		for (i = 0; i < n; i++) {
			struct linnos_io *io = dm_per_bio_data(bios[i], sizeof(*io));

			issue(lt, bios[i], io, m ? route(lt, io, &slow[2 * i], slow[2 * i] &&
						       take_probe(&lt->dev[io->home])) : io->home);
			bio_clear_polled(bios[i]);
			submit_bio_noacct(bios[i]);
		}
		linnos_model_free(m);
	}
}

static int linnos_end_io(struct dm_target *ti, struct bio *bio, blk_status_t *error)
{
	struct linnos_target *lt = ti->private;
	struct linnos_io *io = dm_per_bio_data(bio, sizeof(*io));
	struct linnos_dev *dv;
	unsigned long flags;
	u64 ns;
	u32 us, route_bits;
	bool slow;

	if (io->flags & LINNOS_IO_WRITE)
		return write_end(lt, io, error);
	if (!(io->flags & LINNOS_IO_READ))
		return DM_ENDIO_DONE;
	if (*error)
		return read_error(lt, bio, io);
	ns = ktime_get_ns() - io->start_ns;
	us = min_t(u64, div_u64(ns, NSEC_PER_USEC), U32_MAX);
	dv = &lt->dev[io->dev];
	route_bits = io->flags;
	spin_lock_irqsave(&dv->lock, flags);
	linnos_leg_complete(&dv->leg, us, io->pending_at_issue, io->start_ns + ns);
	atomic_dec(&dv->pending);
	/* The vector keeps the history as it was at issue: push past it. */
	lake_features_capture(dv->reg, NULL, LINNOS_F_LAT_HIST, &us, sizeof(us));
	lake_features_capture(dv->reg, NULL, LINNOS_F_PEND_HIST, &io->pending_at_issue,
			      sizeof(u32));
	if (io->vec) {
		lake_features_capture(dv->reg, io->vec, LINNOS_F_LATENCY, &us, sizeof(us));
		lake_features_capture(dv->reg, io->vec, LINNOS_F_ROUTE, &route_bits,
				      sizeof(route_bits));
		lake_features_commit(dv->reg, io->vec);
	}
	spin_unlock_irqrestore(&dv->lock, flags);

	/* What the reader waited: prediction and batching included. */
	linnos_stats_latency(&lt->st, ktime_get_ns() - io->map_ns);
	if (io->flags & LINNOS_IO_PREDICTED) {
		slow = us > READ_ONCE(lt->threshold_us);
		if (io->flags & LINNOS_IO_PRED_SLOW)
			atomic64_inc(slow ? &lt->st.true_slow : &lt->st.false_revoke);
		else
			atomic64_inc(slow ? &lt->st.false_submit : &lt->st.true_fast);
	}
	return DM_ENDIO_DONE;
}

/*
 * Made-up inputs for timing: every digit varies, since a CPU path may skip
 * the weights of a zero digit.
 */
void linnos_fake_inputs(u8 (*in)[LINNOS_INPUTS])
{
	u32 i, k;

	for (i = 0; i < LINNOS_MAX_VECTORS; i++)
		for (k = 0; k < LINNOS_INPUTS; k++)
			in[i][k] = (i * 7 + k * 3 + 1) % 10;
}

struct calib_arg {
	struct linnos_target *lt;
	struct linnos_model *m;
};

/* lake_fallback_calibrate()'s made-up batches. Under gpu_lock. */
static int calib_run(void *arg, enum lake_target side, u32 nv)
{
	struct calib_arg *c = arg;
	struct linnos_target *lt = c->lt;

	linnos_fake_inputs(lt->tool_in);
	if (side == LAKE_TARGET_GPU)
		return linnos_gpu_infer(lt, c->m, lt->tool_in[0], nv, lt->tool_slow);
	linnos_infer_batch(c->m, lt->tool_in[0], nv, lt->tool_slow);
	return 0;
}

static int calibrate(struct linnos_target *lt)
{
	struct calib_arg c = { .lt = lt, .m = linnos_model_ref(lt) };
	int ret;

	if (!c.m) {
		DMERR("%s: calibrate needs a model", lt->fb_name);
		return -ENOENT;
	}
	mutex_lock(&lt->gpu_lock);
	/* The measured crossover replaces LAKE's starting point. */
	lake_fallback_set_crossover(lt->fb, 0);
	ret = lake_fallback_calibrate(lt->fb, CALIB_ROUNDS, calib_run, &c);
	if (ret)
		lake_fallback_set_crossover(lt->fb, FB_START_CROSSOVER);
	mutex_unlock(&lt->gpu_lock);
	linnos_model_free(c.m);
	if (ret)
		DMERR("%s: calibration failed: %d", lt->fb_name, ret);
	return ret;
}

static int linnos_message(struct dm_target *ti, unsigned int argc, char **argv,
			  char *result, unsigned int maxlen)
{
	struct linnos_target *lt = ti->private;
	u32 us;
	int mode;

	if (argc == 1 && !strcmp(argv[0], "reset")) {
		linnos_stats_reset(&lt->st);
		return 0;
	}
	if (argc == 1 && !strcmp(argv[0], "calibrate"))
		return calibrate(lt);
	if (argc == 2 && !strcmp(argv[0], "model"))
		return set_model(lt, argv[1]);
	if (argc == 2 && !strcmp(argv[0], "mode")) {
		mode = linnos_parse_mode(argv[1]);
		if (mode >= 0)
			return set_mode(lt, mode);
		DMERR("%s: unknown mode '%s' (auto, cpu, gpu, off, shadow)", lt->fb_name, argv[1]);
		return -EINVAL;
	}
	if (argc == 2 && !strcmp(argv[0], "threshold")) {
		if (!linnos_parse_threshold(argv[1], &us)) {
			WRITE_ONCE(lt->threshold_us, us);
			lt->threshold_set = true;
			return 0;
		}
		DMERR("%s: bad threshold '%s' (1..%u us)", lt->fb_name, argv[1],
		      LINNOS_MAX_THRESHOLD_US);
		return -EINVAL;
	}
	DMERR("%s: unknown message (mode M, threshold US, model FILE|none, reset, calibrate)",
	      lt->fb_name);
	return -EINVAL;
}

static void linnos_status(struct dm_target *ti, status_type_t type,
			  unsigned int status_flags, char *result, unsigned int maxlen)
{
	struct linnos_target *lt = ti->private;
	unsigned int sz = 0;

	switch (type) {
	case STATUSTYPE_INFO:
		linnos_status_line(lt, result, maxlen);
		break;
	case STATUSTYPE_TABLE:
		mutex_lock(&lt->model_lock);
		DMEMIT("%s %s mode=%s threshold=%u", lt->dev[0].dm->name, lt->dev[1].dm->name,
		       linnos_mode_name(READ_ONCE(lt->mode)), READ_ONCE(lt->threshold_us));
		if (rcu_access_pointer(lt->model))
			DMEMIT(" model=%s", lt->model_name);
		mutex_unlock(&lt->model_lock);
		break;
	default:
		if (maxlen)
			result[0] = '\0';
		break;
	}
}

static int linnos_iterate_devices(struct dm_target *ti, iterate_devices_callout_fn fn,
				  void *data)
{
	struct linnos_target *lt = ti->private;
	int d, ret = 0;

	for (d = 0; d < LINNOS_NR_DEVS && !ret; d++)
		ret = fn(ti, lt->dev[d].dm, 0, ti->len, data);
	return ret;
}

static void put_devices(struct linnos_target *lt)
{
	int d;

	for (d = 0; d < LINNOS_NR_DEVS; d++) {
		lake_features_destroy(lt->dev[d].reg);
		if (lt->dev[d].dm)
			dm_put_device(lt->ti, lt->dev[d].dm);
	}
}

static int get_devices(struct linnos_target *lt, char **argv)
{
	struct dm_target *ti = lt->ti;
	struct linnos_dev *dv;
	int d, ret;

	for (d = 0; d < LINNOS_NR_DEVS; d++) {
		dv = &lt->dev[d];
		spin_lock_init(&dv->lock);
		ret = dm_get_device(ti, argv[d], dm_table_get_mode(ti->table), &dv->dm);
		if (ret) {
			dv->dm = NULL;
			ti->error = d ? "cannot open the replica" :
					"cannot open the primary";
			return ret;
		}
		if (bdev_nr_sectors(dv->dm->bdev) < ti->len) {
			ti->error = "a replica is smaller than the target";
			return -EINVAL;
		}
		snprintf(dv->reg_name, sizeof(dv->reg_name), "%s.%c", lt->fb_name, "pr"[d]);
		dv->reg = lake_features_create(dv->reg_name, linnos_schema, LINNOS_NR_FEATURES,
					       REG_CAPACITY, REG_MAX_OPEN);
		if (IS_ERR(dv->reg)) {
			ret = PTR_ERR(dv->reg);
			dv->reg = NULL;
			ti->error = "cannot create the feature registry";
			return ret;
		}
	}
	return 0;
}

static void linnos_dtr(struct dm_target *ti)
{
	struct linnos_target *lt = ti->private;

	flush_work(&lt->work);
	flush_work(&lt->retry_work);
	flush_work(&lt->event_work);
	/* A batch the worker gave up on: it ends within lakelib's timeout_ms. */
	flush_work(&lt->job.work);
	linnos_debugfs_remove(lt);
	mutex_lock(&lt->gpu_lock);
	linnos_gpu_release(lt);
	mutex_unlock(&lt->gpu_lock);
	if (rcu_access_pointer(lt->model))
		linnos_model_free(rcu_dereference_protected(lt->model, true));
	lake_fallback_destroy(lt->fb);
	bioset_exit(&lt->bs);
	put_devices(lt);
	kfree(lt);
}

static int linnos_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct linnos_opts o = { .mode = LINNOS_MODE_CPU, .threshold_us = DEFAULT_THRESHOLD_US };
	struct linnos_target *lt;
	const char *why;
	int ret;

	if (argc < 2) {
		ti->error = "need PRIMARY REPLICA [mode=M] [threshold=US] [model=FILE]";
		return -EINVAL;
	}
	lt = kzalloc(sizeof(*lt), GFP_KERNEL);
	if (!lt) {
		ti->error = "out of memory";
		return -ENOMEM;
	}
	lt->ti = ti;
	ti->private = lt;
	lt->id = atomic_inc_return(&linnos_ids) - 1;
	snprintf(lt->fb_name, sizeof(lt->fb_name), "linnos%u", lt->id);
	mutex_init(&lt->model_lock);
	mutex_init(&lt->gpu_lock);
	mutex_init(&lt->trace_lock);
	INIT_WORK(&lt->job.work, gpu_job_run);
	init_completion(&lt->job.done);
	spin_lock_init(&lt->job.lock);
	spin_lock_init(&lt->qlock);
	bio_list_init(&lt->queue);
	INIT_WORK(&lt->work, linnos_work);
	spin_lock_init(&lt->fail_lock);
	INIT_WORK(&lt->event_work, linnos_event_work);
	spin_lock_init(&lt->retry_lock);
	bio_list_init(&lt->retries);
	INIT_WORK(&lt->retry_work, linnos_retry_work);
	RCU_INIT_POINTER(lt->model, NULL);
	strscpy(lt->model_name, "none", sizeof(lt->model_name));

	ret = linnos_parse_options(&o, argc - 2, argv + 2, &why);
	if (ret) {
		ti->error = (char *)why;	/* a literal; dm's field is not const */
		goto err_free;
	}
	lt->mode = o.mode;
	lt->threshold_us = o.threshold_us;
	lt->threshold_set = o.threshold_set;
	ret = get_devices(lt, argv);
	if (ret)
		goto err_devices;
	ret = bioset_init(&lt->bs, BIO_POOL_SIZE, 0, BIOSET_NEED_BVECS);
	if (ret) {
		ti->error = "cannot create the bio set";
		goto err_devices;
	}
	lt->fb = lake_fallback_create(lt->fb_name, LINNOS_MAX_VECTORS, FB_WINDOW_NS);
	if (IS_ERR(lt->fb)) {
		ret = PTR_ERR(lt->fb);
		lt->fb = NULL;
		ti->error = "cannot create the policy";
		goto err_bioset;
	}
	lake_fallback_set_crossover(lt->fb, FB_START_CROSSOVER);
	ret = set_mode(lt, lt->mode);
	if (!ret && o.model)
		ret = set_model(lt, o.model);
	if (ret) {
		ti->error = "cannot load the model (see the log)";
		goto err_fb;
	}
	/* Every piece a read is split into has one home, and 4 KiB histories. */
	ret = dm_set_target_max_io_len(ti, 1 << LINNOS_STRIPE_SHIFT);
	if (ret) {
		ti->error = "cannot set max_io_len";
		goto err_fb;
	}
	ti->num_flush_bios = LINNOS_NR_DEVS;
	ti->per_io_data_size = sizeof(struct linnos_io);
	linnos_debugfs_add(lt, ti);
	return 0;

err_fb:
	if (rcu_access_pointer(lt->model))
		linnos_model_free(rcu_dereference_protected(lt->model, true));
	lake_fallback_destroy(lt->fb);
err_bioset:
	bioset_exit(&lt->bs);
err_devices:
	put_devices(lt);
err_free:
	kfree(lt);
	return ret;
}

static struct target_type linnos_target_type = {
	.name = LINNOS_NAME,
	.version = { 1, 0, 0 },
	.module = THIS_MODULE,
	.ctr = linnos_ctr,
	.dtr = linnos_dtr,
	.map = linnos_map,
	.end_io = linnos_end_io,
	.status = linnos_status,
	.message = linnos_message,
	.iterate_devices = linnos_iterate_devices,
};

static int __init linnos_init(void)
{
	int ret;

	linnos_wq = alloc_workqueue("linnos", WQ_UNBOUND | WQ_MEM_RECLAIM | WQ_HIGHPRI, 0);
	if (!linnos_wq)
		return -ENOMEM;
	/* Its own rescuer: the worker, in reclaim, may wait for a GPU job. */
	linnos_gpu_wq = alloc_workqueue("linnos_gpu", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!linnos_gpu_wq) {
		ret = -ENOMEM;
		goto err_wq;
	}
	ret = linnos_debugfs_init();
	if (ret)
		goto err_gpu_wq;
	ret = dm_register_target(&linnos_target_type);
	if (ret)
		goto err_debugfs;
	return 0;

err_debugfs:
	linnos_debugfs_exit();
err_gpu_wq:
	destroy_workqueue(linnos_gpu_wq);
err_wq:
	destroy_workqueue(linnos_wq);
	return ret;
}

static void __exit linnos_exit(void)
{
	dm_unregister_target(&linnos_target_type);
	linnos_debugfs_exit();
	destroy_workqueue(linnos_gpu_wq);
	destroy_workqueue(linnos_wq);
}

module_init(linnos_init);
module_exit(linnos_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake example: LinnOS, a dm target that fails slow reads over to a replica");
