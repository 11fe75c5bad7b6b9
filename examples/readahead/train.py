#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Train examples/readahead's model on the exporter's windows; write an LKRA file.

The trace is the CSV debugfs lake/readahead/trace gives (make readahead-trace
collects it), one row per device window:

    ts_ns,dev,label,pages,seq,stride,gap_mean,gap_std,run_len,rate,inflight,ra,recent

label is the phase the recorder ran (0 seq, 1 random, 2 strided, 3 mixed:
seq and random in turn; 65535 none), the nine inputs are model.h's, 0..1000. The sweep file, from
the same recording, has a line "PHASE KIB KIBPS" per phase and fixed
readahead: a window's target is the class whose readahead gave its phase the
most throughput (so a random window of the mixed phase, whose RA_F_RECENT
remembers the streams around it, learns the mixed phase's best). Windows that added fewer than --min-pages pages
(the module's min_pages: it makes no decision on them) and unlabelled ones
are left out.

The network is 9 -> --hidden ReLU -> classes (one per readahead in the
sweep, increasing), trained by examples/linnos/train.py's Adam loop on
inputs / 1000 with the classes weighted by their inverse frequency, then
quantized as the kernel runs it (model.c): weights and biases x 1000, each
layer's sums divided by 1000, truncating. The report gives the integer
model's accuracy on every window and per kind.

    train.py trace.csv --sweep sweep.txt -o readahead.lkra
"""
import argparse
import importlib.util
import os
import struct
import sys
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "linnos_train", os.path.join(HERE, "..", "linnos", "train.py"))
lt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lt)

INPUTS, ONE, PARAM_MAX = 9, 1000, 1 << 20
COLUMNS = ["ts_ns", "dev", "label", "pages", "seq", "stride", "gap_mean", "gap_std",
           "run_len", "rate", "inflight", "ra", "recent"]
KINDS = {0: "seq", 1: "random", 2: "strided", 3: "mixed"}


def read_trace(path):
    with open(path) as f:
        head = f.readline().strip().split(",")
        if head != COLUMNS:
            sys.exit(f"train.py: {path}: header is not {','.join(COLUMNS)}")
        rows = [line.strip().split(",") for line in f if line.strip()]
    if not rows:
        sys.exit(f"train.py: {path}: no windows")
    num = [[int(v) for i, v in enumerate(r) if i != 1] for r in rows]
    return np.array(num, dtype=np.int64)        # ts, label, pages, the inputs


def read_sweep(path):
    tput = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 3:
                tput.setdefault(p[0], {})[int(p[1])] = int(p[2])
    if not tput:
        sys.exit(f"train.py: {path}: no sweep lines")
    return tput


def infer_int(q, x):
    """model.c's ra_infer: the class of each input."""
    (w1, b1), (w2, b2) = q
    h = np.maximum(b1 + lt.tdiv(lt.imatmul(x, w1), ONE), 0)
    z = b2 + lt.tdiv(lt.imatmul(h, w2), ONE)
    return np.argmax(z, axis=1)     # the first of equal maxima, as model.c


def weight_file(q, kib):
    (w1, b1), (w2, b2) = q
    payload = b"".join(np.asarray(v, dtype="<i4").tobytes() for v in (w1, b1, w2, b2))
    head = struct.pack("<4sHHHHI8IIII", b"LKRA", 1, INPUTS, w1.shape[0], w2.shape[0], ONE,
                       *(kib + [0] * (8 - len(kib))), len(payload), 0, 0)
    crc = zlib.crc32(payload, zlib.crc32(head))
    return head + struct.pack("<I", crc) + payload


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("trace")
    p.add_argument("--sweep", required=True, help="PHASE KIB KIBPS lines")
    p.add_argument("-o", "--out", default="readahead.lkra")
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--min-pages", type=int, default=64)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--decay", type=float, default=1e-4)
    p.add_argument("--epochs", type=int, default=400)
    p.add_argument("--check-out", help="also write C check vectors here (tests/unit)")
    a = p.parse_args()

    sweep = read_sweep(a.sweep)
    kib = sorted({k for ph in sweep.values() for k in ph})
    if not 2 <= len(kib) <= 8:
        sys.exit("train.py: the sweep must name 2..8 readahead sizes")
    best = {}
    for label, kind in KINDS.items():
        if kind in sweep:
            best[label] = kib.index(max(sweep[kind], key=lambda k: sweep[kind][k]))
            print(f"{kind:8s} best {kib[best[label]]:5d} KiB: " +
                  "  ".join(f"{k} KiB {sweep[kind][k]} KiB/s" for k in sorted(sweep[kind])))
    d = read_trace(a.trace)
    keep = np.isin(d[:, 1], list(best)) & (d[:, 2] >= a.min_pages)
    d = d[keep]
    if len(d) < 4:
        sys.exit("train.py: fewer than 4 labelled windows with enough pages")
    x = d[:, 3:3 + INPUTS]
    y = np.array([best[int(v)] for v in d[:, 1]], dtype=np.int64)
    freq = np.bincount(y, minlength=len(kib)).astype(np.float64)
    cw = np.where(freq > 0, len(y) / np.maximum(freq, 1) / np.count_nonzero(freq), 0)
    a.epochs = [a.epochs]
    a.slow_weight = 1.0
    rng = np.random.default_rng(a.seed)
    params = lt.train(0, x, y, a, rng, sizes=[INPUTS, a.hidden, len(kib)], xscale=ONE,
                      fold=False, class_weight=cw)
    q = lt.quantize(params)
    for w, b in q:
        if np.abs(w).max() > PARAM_MAX or np.abs(b).max() > PARAM_MAX:
            sys.exit("train.py: a weight or bias is out of the kernel's range; not written")
    pred = infer_int(q, x)
    print(f"{len(y)} windows, classes {kib} KiB: integer model agrees with the label on "
          f"{np.mean(pred == y):.2%}")
    for label, kind in KINDS.items():
        sel = d[:, 1] == label
        if sel.any():
            print(f"  {kind:8s} {sel.sum():4d} windows, {np.mean(pred[sel] == y[sel]):.2%}")
    with open(a.out, "wb") as f:
        f.write(weight_file(q, kib))
    if a.check_out:
        with open(a.check_out, "w") as f:
            f.write("# seq stride gap_mean gap_std run_len rate inflight ra recent class (train.py)\n")
            for row, c in zip(x, pred):
                f.write(" ".join(str(int(v)) for v in row) + f" {int(c)}\n")


if __name__ == "__main__":
    main()
