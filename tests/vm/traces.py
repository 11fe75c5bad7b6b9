#!/usr/bin/env python3
"""usage: traces.py OUTDIR [--seeds N] [--seconds S] [--device-bytes B] [--io-max B]

fio iologs (version 3: timestamps in us) of LAKE's three synthetic traces,
for the demo's replays (tests/vm/demo.sh), written as OUTDIR/NAME-SEED.log.
Generated from the parameters the LAKE paper publishes (read share; read
and write size, average and maximum, KB; mean inter-arrival, us):
exponential inter-arrivals, log-normal sizes whose maximum is their 99.99th
percentile, rounded up to 4 KiB, capped at the maximum and at --io-max (the
guest's replicas are small), random aligned offsets. The published rates are
far beyond one emulated CPU, so each trace's arrivals are spread out until
it offers --mbps MB/s (OUTDIR/scale.txt lists the factors); mixed-SEED.log
is the three merged on their timestamps. Seeded: the same arguments give
the same files.
"""
import argparse
import math
import os
import random

# name: read share, read avg/max KB, write avg/max KB, inter-arrival us
TRACES = {
    "azure": (0.25, 25, 64, 17, 64, 77),
    "bing": (0.23, 55, 512, 30, 1024, 416),
    "cosmos": (0.23, 430, 7000, 107, 32000, 400),
}
Z9999 = 3.719


def lognormal(avg, mx):
    """mu, sigma of a log-normal with mean avg and 99.99th percentile mx."""
    d = Z9999 * Z9999 - 2 * math.log(mx / avg)
    sigma = Z9999 - math.sqrt(d) if d > 0 else Z9999
    return math.log(avg) - sigma * sigma / 2, sigma


def scale_of(name, mbps):
    rp, ravg, _, wavg, _, iat = TRACES[name]
    offered = (rp * ravg + (1 - rp) * wavg) * 1024 / iat  # bytes per us = MB/s
    return max(1.0, offered / mbps)


def write_trace(path, name, seed, seconds, dev_bytes, io_max, mbps, dev):
    rp, ravg, rmax, wavg, wmax, iat = TRACES[name]
    rng = random.Random(f"{name}-{seed}")
    rd = lognormal(ravg, rmax)
    wr = lognormal(wavg, wmax)
    scale = scale_of(name, mbps)
    mean_iat = iat * scale

    def size(mu_sigma, mx):
        s = math.ceil(rng.lognormvariate(*mu_sigma) * 1024 / 4096) * 4096
        return min(max(s, 4096), mx * 1024, io_max)

    t = 0.0
    with open(path, "w") as f:
        f.write("fio version 3 iolog\n")
        f.write(f"0 {dev} add\n0 {dev} open\n")
        while t < seconds * 1e6:
            is_read = rng.random() < rp
            n = size(rd, rmax) if is_read else size(wr, wmax)
            off = rng.randrange((dev_bytes - n) // 4096 + 1) * 4096
            f.write(f"{int(t)} {dev} {'read' if is_read else 'write'} {off} {n}\n")
            t += rng.expovariate(1 / mean_iat)
        f.write(f"{int(t)} {dev} close\n")
    return scale


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--device-bytes", type=int, default=16 << 20)
    ap.add_argument("--io-max", type=int, default=1 << 20)
    ap.add_argument("--mbps", type=float, default=4)
    ap.add_argument("--dev", default="/dev/mapper/lin")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    with open(os.path.join(a.outdir, "scale.txt"), "w") as f:
        for name in TRACES:
            for seed in range(1, a.seeds + 1):
                s = write_trace(os.path.join(a.outdir, f"{name}-{seed}.log"), name, seed,
                                a.seconds, a.device_bytes, a.io_max, a.mbps, a.dev)
            f.write(f"{name} {s:.1f}\n")
    for seed in range(1, a.seeds + 1):
        ios = []
        for name in TRACES:
            with open(os.path.join(a.outdir, f"{name}-{seed}.log")) as f:
                ios += [ln.split() for ln in f if ln.split()[2] in ("read", "write")]
        ios.sort(key=lambda io: int(io[0]))
        with open(os.path.join(a.outdir, f"mixed-{seed}.log"), "w") as f:
            f.write(f"fio version 3 iolog\n0 {a.dev} add\n0 {a.dev} open\n")
            f.writelines(" ".join(io) + "\n" for io in ios)
            f.write(f"{ios[-1][0]} {a.dev} close\n")


if __name__ == "__main__":
    main()
