#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Build examples/sysmon's reference file from windows its exporter recorded.

    train.py WINDOWS.csv... -o ref/sysmon.skr [--k 3] [--percentile 95] [--margin 1.25]

Input: the CSV of debugfs lake/sysmon/windows (ts_ns,tgid,comm,calls,score,
c0..c63), from known-good programs (make sysmon-trace records it in the
guest). Each window of at least --min-calls calls (the module's min_calls)
becomes features exactly as the module computes them (ref.h: per group,
isqrt((count << 24) / group total)); identical windows are kept once.

The threshold: each reference window is scored against the others (leave
one out: its k nearest among the rest, knn.h's score); the threshold is the
--percentile of those scores times --margin, rounded up. So about 5% of
known-good windows would pass the percentile itself, and the margin keeps
programs the reference resembles, but never saw, below it.

Output: the reference file (ref.c's format), and a summary on stdout.
"""
import argparse
import csv
import math
import struct
import sys
import zlib

import numpy as np

DIMS, UNI, FEAT_SHIFT, FEAT_MAX = 64, 48, 24, 4096
MAGIC, VERSION, FEATURES_ID, REF_MAX, K_MAX = b"SMKN", 1, 1, 8192, 16


def features(counts):
    out = []
    for lo, hi in ((0, UNI), (UNI, DIMS)):
        total = sum(counts[lo:hi])
        out += [math.isqrt((c << FEAT_SHIFT) // total) if total else 0 for c in counts[lo:hi]]
    return out


def read_windows(paths, min_calls):
    rows, comms = [], {}
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                counts = [int(r["c%d" % i]) for i in range(DIMS)]
                if sum(counts[:UNI]) < min_calls:
                    continue
                rows.append(features(counts))
                comms[r["comm"]] = comms.get(r["comm"], 0) + 1
    return rows, comms


def loo_scores(x, k, chunk=256):
    """knn.h's score of each row against all the others, chunk rows at a
    time (a chunk x n x 64 array, not n x n x 64)."""
    xi = x.astype(np.int64)
    out = np.empty(len(xi), dtype=np.int64)
    for lo in range(0, len(xi), chunk):
        part = xi[lo:lo + chunk]
        d2 = ((part[:, None, :] - xi[None, :, :]) ** 2).sum(axis=2)
        d2[np.arange(len(part)), np.arange(lo, lo + len(part))] = np.iinfo(np.int64).max
        near = np.sort(d2, axis=1)[:, :k]
        out[lo:lo + len(part)] = np.vectorize(math.isqrt)(near).sum(axis=1) // k
    return out


def write_ref(path, rows, k, threshold):
    payload = struct.pack("<%dH" % (len(rows) * DIMS), *[v for r in rows for v in r])
    head = MAGIC + struct.pack("<HHIIIII", VERSION, DIMS, len(rows), k, threshold,
                               FEATURES_ID, 0)
    crc = zlib.crc32(payload, zlib.crc32(head)) & 0xffffffff
    with open(path, "wb") as f:
        f.write(head + struct.pack("<I", crc) + payload)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("windows", nargs="+")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--min-calls", type=int, default=16)
    ap.add_argument("--percentile", type=float, default=95.0)
    ap.add_argument("--margin", type=float, default=1.25)
    a = ap.parse_args()
    rows, comms = read_windows(a.windows, a.min_calls)
    uniq = sorted(set(map(tuple, rows)))
    if not 1 <= a.k <= K_MAX or len(uniq) <= a.k or len(uniq) > REF_MAX:
        sys.exit("train.py: %d distinct windows for k %d (need k+1..%d, k 1..%d)" %
                 (len(uniq), a.k, REF_MAX, K_MAX))
    x = np.array(uniq, dtype=np.uint16)
    assert x.max() <= FEAT_MAX
    loo = loo_scores(x, a.k)
    pct = int(np.percentile(loo, a.percentile))
    threshold = max(1, math.ceil(pct * a.margin))
    write_ref(a.out, [list(r) for r in uniq], a.k, threshold)
    print("train.py: %d windows (%d distinct) from %d programs: %s" %
          (len(rows), len(uniq), len(comms),
           " ".join("%s:%d" % c for c in sorted(comms.items()))))
    print("train.py: leave-one-out scores: median %d, p90 %d, p%g %d, max %d" %
          (int(np.median(loo)), int(np.percentile(loo, 90)), a.percentile, pct, int(loo.max())))
    print("train.py: k %d, threshold %d (p%g x %g) -> %s" %
          (a.k, threshold, a.percentile, a.margin, a.out))


if __name__ == "__main__":
    main()
