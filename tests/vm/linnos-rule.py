#!/usr/bin/python3
"""Write linnos_rule.lnw: an NN weight file that states a rule instead of
learning one. Slow exactly when two or more of the four history latencies
are at or above 1,500 us, whatever the pending counts. The VM routing case
(tests/vm/cases/53-linnosroute.sh) uses it so that where reads go is checked
against known verdicts, independently of the trained weights.

Integer arithmetic as infer.h defines it: for each history entry k, two
hidden units read its latency digits as the value v (in us) and give
v - 1499 and v - 1500 after ReLU; their difference is 1 exactly when
v >= 1500. The slow output sums those steps times W, the fast output is
1.5 W."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../examples/linnos"))
import train  # noqa: E402

W = 8_000_000   # within the parser's +-8,388,607
w0 = np.zeros((train.HIDDEN, train.INPUTS), dtype=np.int64)
b0 = np.zeros(train.HIDDEN, dtype=np.int64)
w1 = np.zeros((train.OUTPUTS, train.HIDDEN), dtype=np.int64)
b1 = np.zeros(train.OUTPUTS, dtype=np.int64)
for k in range(4):
    for j, unit in enumerate((2 * k, 2 * k + 1)):
        w0[unit, 3 + 7 * k:3 + 7 * k + 4] = (1000, 100, 10, 1)
        b0[unit] = -1499 - j
        w1[1, unit] = W if j == 0 else -W
b1[0] = 3 * W // 2 // train.SCALE
q = [(w0, b0), (w1, b1)]
assert train.overflow_proof(q) is None
sys.stdout.buffer.write(train.weight_file(0, q, 1500))
