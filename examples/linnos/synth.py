#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A synthetic read trace of a flash device, in train.py's CSV format.

So that the trainer and its tests run without a guest. The device: reads
arrive as a Poisson stream (mean gap --gap-us) with occasional bursts of
--burst reads at once; a read's latency is a base cost, plus a cost per
read already queued, plus log-normal noise. Garbage collection starts at
random (mean gap --gc-gap-ms) and lasts 2..10 ms; a read issued during it
waits for most of the remaining collection, so reads pile up: the pending
count climbs and recent completions turn slow, the signals LinnOS learns.

    synth.py --reads 120000 --seed 1 > trace.csv
"""
import argparse
import heapq
import sys

import numpy as np

HEADER = ("ts_ns,dev,pending,lat_us,hist_lat0,hist_lat1,hist_lat2,hist_lat3,"
          "hist_pend0,hist_pend1,hist_pend2,hist_pend3")


def device_trace(rng, reads, dev, a):
    """Rows (ts_ns, dev, pending, lat_us, hist_lat[4], hist_pend[4])."""
    t = 0.0                       # us
    gc_start = rng.exponential(a.gc_gap_ms * 1000)
    gc_end = gc_start + rng.uniform(2000, 10000)
    inflight = []                 # (completion us, latency us, pending at issue)
    hist = [(0, 0)] * 4           # (latency, pending) of the last completions, newest first
    rows = []
    burst_left = 0
    while len(rows) < reads:
        if burst_left:
            burst_left -= 1
            t += rng.uniform(0, 2)
        else:
            t += rng.exponential(a.gap_us)
            if rng.random() < a.burst_prob:
                burst_left = a.burst - 1
        while t >= gc_end:
            gc_start = gc_end + rng.exponential(a.gc_gap_ms * 1000)
            gc_end = gc_start + rng.uniform(2000, 10000)
        # Completions before t update the history, oldest first.
        while inflight and inflight[0][0] <= t:
            _, lat, pend = heapq.heappop(inflight)
            hist = [(lat, pend)] + hist[:3]
        pending = len(inflight)
        lat = (a.base_us + a.per_pending_us * pending) * rng.lognormal(0, 0.2)
        if gc_start <= t < gc_end:
            lat += 300 + 0.8 * (gc_end - t)
        lat = int(round(lat))
        heapq.heappush(inflight, (t + lat, lat, pending))
        rows.append((int(t * 1000), dev, pending, lat,
                     *[h[0] for h in hist], *[h[1] for h in hist]))
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reads", type=int, default=120000, help="reads per device")
    p.add_argument("--devices", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--gap-us", type=float, default=40.0, help="mean gap between reads")
    p.add_argument("--burst", type=int, default=12, help="reads in a burst")
    p.add_argument("--burst-prob", type=float, default=0.01)
    p.add_argument("--base-us", type=float, default=90.0)
    p.add_argument("--per-pending-us", type=float, default=10.0)
    p.add_argument("--gc-gap-ms", type=float, default=60.0, help="mean time between collections")
    p.add_argument("-o", "--out", help="output file (default stdout)")
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    out = open(a.out, "w") if a.out else sys.stdout
    out.write(HEADER + "\n")
    for dev in range(a.devices):
        for r in device_trace(rng, a.reads, dev, a):
            out.write(",".join(str(v) for v in r) + "\n")
    if a.out:
        out.close()


if __name__ == "__main__":
    main()
