#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Train LinnOS's models (NN, NN+1, NN+2) on a read trace; write weight files.

The trace is CSV with a header line and one row per completed read:

    ts_ns,dev,pending,lat_us,hist_lat0,hist_lat1,hist_lat2,hist_lat3,
    hist_pend0,hist_pend1,hist_pend2,hist_pend3

ts_ns     when the read was issued (ns, any epoch; rows in issue order)
dev       the device (replica) it went to; models are per device (--dev)
pending   reads outstanding on dev when it was issued
lat_us    its observed latency (us): the label
hist_latK latency (us) of the K-th most recent read completed on dev
          before this one was issued (0 newest; 0 when there was none)
hist_pendK that read's own pending count at issue

Inputs are the kernel's 31 digits (model.h, linnos_encode): pending (3
digits, cap 999), then per history entry its latency (4 digits, cap 9999)
and its pending count (3 digits, cap 999). A read is slow when lat_us is
above the threshold: --threshold-us (make linnos-weights gives 1000, see
examples/linnos/README.md), or the knee of the training latencies' CDF
(LinnOS's "inflection point": the point farthest above the CDF's chord,
latencies past p99.9 clipped), or --percentile P. The weight file carries
it; the target judges its predictions against it.

Several traces may be given: they are trained on together. --held-out
names the traces reported on; without it, the last 20% of the reads (in
time order) are held out. Training adds, to a sample of at most
--max-train reads:

  host speed: each training read is also seen (--copies times) with its fast latencies
    (history and label) scaled by one random factor (--scale, 0.3x..20x by
    default; kept below the threshold) and, where its history is all fast,
    pending counts drawn anew in 0..8, so that a faster or slower machine's
    fast reads still look fast;
  the slow rule: histories with two or more entries at or above 1.5 ms
    (lake_slow's smallest delay; a device in a slow period) labelled slow,
    the others and the pending counts random (--rule, a fraction of the
    training reads).

Each slow read weighs --slow-weight times a fast one in the loss (not the
classes' inverse frequencies: those made anything unfamiliar "slow").

The report, per variant, on the held-out reads, for the integer model the
kernel runs (weights x 1000, its truncations), judges every prediction, as
LinnOS does (make linnos-eval prints the same from C): accuracy, precision
and recall of "slow", false submits (predicted fast, was slow) and false
revokes (predicted slow, was fast), as fractions of all reads, beside
"always fast". A model whose weights fail the kernel's overflow proof
(model.c) is not written.

    synth.py -o trace.csv && train.py trace.csv -o weights/
"""
import argparse
import os
import struct
import sys
import time
import zlib

import numpy as np

INPUTS, HIDDEN, OUTPUTS, SCALE = 31, 256, 2, 1000
PARAM_MAX = (1 << 23) - 1
S32_MIN, S32_MAX = -(1 << 31), (1 << 31) - 1
NAMES = {0: "NN", 1: "NN+1", 2: "NN+2"}
COLUMNS = ["ts_ns", "dev", "pending", "lat_us"] + \
    [f"hist_lat{k}" for k in range(4)] + [f"hist_pend{k}" for k in range(4)]


def read_trace(path):
    with open(path) as f:
        head = f.readline().strip().split(",")
        if head != COLUMNS:
            sys.exit(f"train.py: {path}: header is not {','.join(COLUMNS)}")
        d = np.loadtxt(f, delimiter=",", dtype=np.int64, ndmin=2)
    if d.shape[0] == 0:
        sys.exit(f"train.py: {path}: no reads")
    return {c: d[:, i] for i, c in enumerate(COLUMNS)}


def digits(v, n, cap):
    v = np.minimum(np.maximum(v, 0), cap)
    return np.stack([(v // 10 ** (n - 1 - i)) % 10 for i in range(n)], axis=1)


def encode(t):
    """The 31 digits of linnos_encode, one row per read."""
    parts = [digits(t["pending"], 3, 999)]
    for k in range(4):
        parts.append(digits(t[f"hist_lat{k}"], 4, 9999))
        parts.append(digits(t[f"hist_pend{k}"], 3, 999))
    return np.concatenate(parts, axis=1).astype(np.int64)


def knee(lat):
    """The latency where the CDF is farthest above its chord."""
    x = np.sort(lat.astype(np.float64))
    hi = np.percentile(x, 99.9)
    x = x[x <= hi]
    y = np.arange(1, len(x) + 1) / len(x)
    if x[-1] == x[0]:
        return int(x[0])
    xn = (x - x[0]) / (x[-1] - x[0])
    return int(x[np.argmax(y - xn)])


# ---- the network, float, in numpy ------------------------------------------

def init(variant, rng, sizes=None):
    sizes = sizes or [INPUTS] + [HIDDEN] * (1 + variant) + [OUTPUTS]
    return [(rng.normal(0, np.sqrt(2.0 / i), (o, i)).astype(np.float32),
             np.zeros(o, np.float32)) for i, o in zip(sizes[:-1], sizes[1:])]


def forward(params, x):
    acts = [x]
    for l, (w, b) in enumerate(params):
        z = acts[-1] @ w.T + b
        acts.append(np.maximum(z, 0) if l + 1 < len(params) else z)
    return acts


def train(variant, x, y, a, rng, sizes=None, xscale=9.0, fold=True, class_weight=None):
    """Adam on softmax cross-entropy. Other models than LinnOS's (examples/
    readahead/train.py) give their layer sizes, their inputs' scale, whether
    to fold that scale into the first layer, and per-class loss weights."""
    params = init(variant, rng, sizes)
    m = [(np.zeros_like(w), np.zeros_like(b)) for w, b in params]
    v = [(np.zeros_like(w), np.zeros_like(b)) for w, b in params]
    cw = np.array([1.0, a.slow_weight] if class_weight is None else class_weight, np.float32)
    step = 0
    xs = x.astype(np.float32) / xscale  # LinnOS's: digits / 9, folded back below
    for _ in range(a.epochs[variant]):
        order = rng.permutation(len(y))
        for s in range(0, len(y), a.batch):
            idx = order[s:s + a.batch]
            acts = forward(params, xs[idx])
            z = acts[-1]
            p = np.exp(z - z.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            wgt = cw[y[idx]]
            g = p
            g[np.arange(len(idx)), y[idx]] -= 1
            g *= (wgt / wgt.sum())[:, None]
            step += 1
            for l in range(len(params) - 1, -1, -1):
                w, b = params[l]
                gw = g.T @ acts[l] + a.decay * w
                gb = g.sum(axis=0)
                if l:
                    g = (g @ w) * (acts[l] > 0)
                for j, (pp, gg) in enumerate(((w, gw), (b, gb))):
                    mm = m[l][j]
                    vv = v[l][j]
                    mm *= 0.9
                    mm += 0.1 * gg
                    vv *= 0.999
                    vv += 0.001 * gg * gg
                    pp -= a.lr * (mm / (1 - 0.9 ** step)) / (np.sqrt(vv / (1 - 0.999 ** step)) + 1e-8)
    # The kernel feeds raw digits: fold the / 9 into the first layer.
    if fold:
        params[0] = (params[0][0] / xscale, params[0][1])
    return [(w.astype(np.float64), b.astype(np.float64)) for w, b in params]


# ---- the integer model the kernel runs -------------------------------------

def quantize(params):
    return [(np.rint(w * SCALE).astype(np.int64), np.rint(b * SCALE).astype(np.int64))
            for w, b in params]


def tdiv(s, d):
    """C's truncating division."""
    return np.sign(s) * (np.abs(s) // d)


def imatmul(a, w):
    """a @ w.T exactly: in doubles (BLAS) when no sum can reach 2^53, else int64."""
    if np.abs(a).max(initial=0) * np.abs(w).sum(axis=1).max(initial=0) < 2 ** 53:
        return (a.astype(np.float64) @ w.T.astype(np.float64)).astype(np.int64)
    return a @ w.T


def infer_int(q, x):
    """The two scores of each input, exactly as infer.h defines them."""
    a = np.maximum(imatmul(x, q[0][0]) + q[0][1], 0)
    for w, b in q[1:-1]:
        a = np.maximum(b + tdiv(imatmul(a, w), SCALE), 0)
    w, b = q[-1]
    return b + tdiv(imatmul(a, w), SCALE)


def overflow_proof(q):
    """model.c's check_bounds: None, or why the kernel would refuse it."""
    for w, b in q:
        if np.abs(w).max() > PARAM_MAX or np.abs(b).max() > PARAM_MAX:
            return "weight or bias out of range"
    hi_a = [9] * INPUTS
    for l, (w, b) in enumerate(q):
        hi_a = np.array(hi_a, dtype=object)
        wo = w.astype(object)
        hi = (np.where(wo > 0, wo, 0) * hi_a).sum(axis=1)
        lo = (np.where(wo < 0, wo, 0) * hi_a).sum(axis=1)
        if l == 0:
            hi, lo = hi + b, lo + b
        else:
            hi = np.array([bb + int(tdiv(h, SCALE)) for bb, h in zip(b, hi)], dtype=object)
            lo = np.array([bb + int(tdiv(v, SCALE)) for bb, v in zip(b, lo)], dtype=object)
        if min(lo) < S32_MIN or max(hi) > S32_MAX:
            return "weights could overflow 32-bit activations"
        hi_a = [max(int(h), 0) for h in hi]
    return None


def weight_file(variant, q, threshold):
    payload = b"".join(np.asarray(w, dtype="<i4").tobytes() + np.asarray(b, dtype="<i4").tobytes()
                       for w, b in q)
    dims = [INPUTS] + [HIDDEN] * (1 + variant) + [OUTPUTS]
    dims += [0] * (6 - len(dims))
    head = struct.pack("<4sHHIII6II3I", b"LNOS", 1, variant, len(q), SCALE, threshold,
                       *dims, len(payload), 0, 0, 0)
    crc = zlib.crc32(payload, zlib.crc32(head))
    return head + struct.pack("<I", crc) + payload


def counts(pred, y):
    """reads, slow, false submits, false revokes: every prediction judged."""
    return len(y), int(np.sum(y)), int(np.sum(~pred & y)), int(np.sum(pred & ~y))


def report(name, pred, y):
    tp = int(np.sum(pred & y))
    n, _, fn, fp = counts(pred, y)
    return (f"{name:5s} accuracy {(n - fp - fn) / n:6.2%}  precision "
            f"{tp / max(tp + fp, 1):6.2%}  recall {tp / max(tp + fn, 1):6.2%}  "
            f"false submit {fn / n:6.2%}  false revoke {fp / n:6.2%}")


# ---- training data ----------------------------------------------------------

LAT_COLS = ["lat_us"] + [f"hist_lat{k}" for k in range(4)]
PEND_COLS = ["pending"] + [f"hist_pend{k}" for k in range(4)]
RULE_US = 1500      # lake_slow's smallest delay: 3000 us - 50%


def take(t, idx):
    return {c: v[idx] for c, v in t.items()}


def join(ts):
    return {c: np.concatenate([t[c] for t in ts]) for c in COLUMNS}


def speed_copy(t, thr, lo, hi, rng):
    """t as a host lo..hi times slower would see it: fast latencies scaled."""
    u = {c: v.copy() for c, v in t.items()}
    n = len(t["lat_us"])
    lat = np.stack([t[c] for c in LAT_COLS], axis=1).astype(np.float64)
    fast = lat <= thr
    f = np.exp(rng.uniform(np.log(lo), np.log(hi), n))
    f = np.minimum(f, thr / np.maximum(np.where(fast, lat, 0).max(axis=1), 1))
    scaled = np.where(lat > 0, np.maximum(np.rint(lat * f[:, None]), 1), 0)
    lat = np.where(fast, scaled, lat).astype(np.int64)
    for j, c in enumerate(LAT_COLS):
        u[c] = lat[:, j]
    # Where nothing in the history is slow, the queue depth is the host's
    # and the workload's, not the device's state: draw it anew.
    calm = fast[:, 1:].all(axis=1)
    same = rng.integers(0, 9, n)        # a steady queue, or one that varies
    steady = rng.random(n) < 0.3
    for c in PEND_COLS:
        u[c] = np.where(calm, np.where(steady, same, rng.integers(0, 9, n)), u[c])
    return u


def log_uniform(rng, lo, hi, shape):
    return np.rint(np.exp(rng.uniform(np.log(lo), np.log(hi), shape))).astype(np.int64)


def rule_rows(n, rng):
    """n histories with 2..4 entries >= RULE_US, the rest anything: slow."""
    u = rng.random((n, 4))
    hist = np.where(u < 0.1, 0, np.where(u < 0.6, log_uniform(rng, 1, RULE_US - 1, (n, 4)),
                                         log_uniform(rng, 1, 20000, (n, 4))))
    k = rng.choice([2, 2, 3, 4], n)     # two is the edge: the most of them
    slow = np.argsort(rng.random((n, 4)), axis=1) < k[:, None]
    edge = rng.random((n, 4)) < 0.3     # just past RULE_US, where it is least clear
    hist = np.where(slow, np.where(edge, rng.integers(RULE_US, 2 * RULE_US, (n, 4)),
                                   log_uniform(rng, RULE_US, 20000, (n, 4))), hist)
    t = {"ts_ns": np.zeros(n, np.int64), "dev": np.zeros(n, np.int64),
         "lat_us": np.full(n, 3 * RULE_US, np.int64)}
    for k in range(4):
        t[f"hist_lat{k}"] = hist[:, k]
    for c in PEND_COLS:         # as often none as in a trace, or anything
        u = rng.random(n)
        t[c] = np.where(u < 0.4, 0, np.where(u < 0.7, rng.integers(0, 9, n),
                                             log_uniform(rng, 1, 1000, n) - 1))
    return t


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("trace", nargs="+", help="training traces")
    p.add_argument("--held-out", nargs="+", help="traces to report on (else the last 20%%)")
    p.add_argument("-o", "--out-dir", default=".", help="where linnos_nn{,1,2}.lnw go")
    p.add_argument("--dev", type=int, help="train on this device's reads only")
    p.add_argument("--percentile", type=float, help="slow threshold at this latency percentile")
    p.add_argument("--threshold-us", type=int, help="slow threshold, us")
    p.add_argument("--variants", default="0,1,2", help="0 NN, 1 NN+1, 2 NN+2")
    p.add_argument("--max-train", type=int, default=40000, help="training reads at most")
    p.add_argument("--slow-weight", type=float, default=2.0,
                   help="weight of a slow read in the loss, a fast one's being 1")
    p.add_argument("--scale", default="0.3,20", help="host speed factors: LO,HI (0: none)")
    p.add_argument("--copies", type=int, default=2, help="host speed copies of each read")
    p.add_argument("--rule", type=float, default=0.5,
                   help="slow-rule histories, a fraction of the training reads")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--decay", type=float, default=1e-4)
    p.add_argument("--epochs", default="10,3,3", help="per variant")
    p.add_argument("--check-out", help="also write C check vectors here (tests/unit)")
    p.add_argument("--eval", help="a trace to count false submits and revokes on (tests/unit)")
    p.add_argument("--eval-out", help="where those counts go, one line per variant")
    a = p.parse_args()
    a.epochs = [int(e) for e in a.epochs.split(",")]

    def load(paths):
        t = join([read_trace(f) for f in paths])
        if a.dev is not None:
            keep = t["dev"] == a.dev
            t = take(t, keep)
            if not keep.any():
                sys.exit(f"train.py: no reads of device {a.dev}")
        return t

    t = load(a.trace)
    if a.held_out:
        held = load(a.held_out)
    else:
        split = int(len(t["lat_us"]) * 0.8)
        held, t = take(t, np.arange(split, len(t["lat_us"]))), take(t, np.arange(split))
    lat = t["lat_us"]
    if a.threshold_us:
        thr = a.threshold_us
    elif a.percentile is not None:
        thr = int(np.percentile(lat, a.percentile))
    else:
        thr = knee(lat)
    thr = max(thr, 1)
    rng = np.random.default_rng(a.seed)
    tr = np.arange(len(lat))
    if len(tr) > a.max_train:
        tr = np.sort(rng.choice(tr, a.max_train, replace=False))
    parts = [take(t, tr)]
    lo, hi = (float(v) for v in (a.scale.split(",") + [0])[:2])
    for _ in range(a.copies if lo > 0 else 0):
        parts.append(speed_copy(parts[0], thr, lo, hi, rng))
    if a.rule > 0:
        parts.append(rule_rows(int(len(tr) * a.rule), rng))
    ttr = join(parts)
    x, y = encode(ttr), ttr["lat_us"] > thr
    xe, ye = encode(held), held["lat_us"] > thr
    if y.all() or not y.any():
        sys.exit(f"train.py: threshold {thr} us leaves one class only")
    how = "given" if a.threshold_us or a.percentile is not None else "knee"
    print(f"train {' '.join(a.trace)}: {len(lat)} reads, threshold {thr} us ({how}), "
          f"slow {np.mean(lat > thr):.2%}; {len(tr)} sampled, {len(y)} with augmentation")
    print(f"held out {' '.join(a.held_out or ['the last 20%'])}: {len(ye)} reads, "
          f"slow {ye.mean():.2%}")
    print(report("fast!", np.zeros(len(ye), bool), ye) + "  (always fast)")
    if a.eval:
        ev = load([a.eval])
        xv, yv = encode(ev), ev["lat_us"] > thr
        evals = [f"# {a.eval}: variant reads slow false_submit false_revoke (train.py)",
                 "- %d %d %d %d" % counts(np.zeros(len(yv), bool), yv)]
    checks = []
    for variant in (int(v) for v in a.variants.split(",")):
        t0 = time.time()
        params = train(variant, x, y.astype(np.int64), a, rng)
        q = quantize(params)
        why = overflow_proof(q)
        if why:
            sys.exit(f"train.py: {NAMES[variant]}: {why}; not written")
        zi = infer_int(q, xe)
        zf = forward(params, xe.astype(np.float64))[-1]
        print(report(NAMES[variant], zi[:, 1] > zi[:, 0], ye) +
              f"  ({time.time() - t0:.1f}s; float model agrees on "
              f"{np.mean((zf[:, 1] > zf[:, 0]) == (zi[:, 1] > zi[:, 0])):.2%})")
        path = os.path.join(a.out_dir, f"linnos_nn{variant or ''}.lnw")
        with open(path, "wb") as f:
            f.write(weight_file(variant, q, thr))
        n = len(ye)
        for i in range(0, n, max(n // 200, 1))[:200]:
            row = [held["pending"][i]] + [held[f"hist_lat{k}"][i] for k in range(4)] + \
                [held[f"hist_pend{k}"][i] for k in range(4)]
            checks.append(f"{variant} " + " ".join(str(int(v)) for v in row) +
                          f" {zi[i, 0]} {zi[i, 1]}")
        if a.eval:
            zv = infer_int(q, xv)
            evals.append(f"{variant} %d %d %d %d" % counts(zv[:, 1] > zv[:, 0], yv))
    if a.check_out:
        with open(a.check_out, "w") as f:
            f.write("# variant pending hist_lat0..3 hist_pend0..3 z0 z1 (train.py)\n")
            f.write("\n".join(checks) + "\n")
    if a.eval_out:
        with open(a.eval_out, "w") as f:
            f.write("\n".join(evals) + "\n")


if __name__ == "__main__":
    main()
