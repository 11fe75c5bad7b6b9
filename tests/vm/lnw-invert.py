#!/usr/bin/env python3
"""usage: lnw-invert.py IN.lnw OUT.lnw

A LinnOS weight file of the same variant whose verdicts are the opposite
of IN's: the output layer's two rows (and biases) swapped, the CRC redone
(format: examples/linnos/model.c). The VM cases swap between the two to
catch a GPU side that keeps the weights of the model before a swap.
"""
import struct
import sys
import zlib

HDR, CRC_AT = 64, 60

data = open(sys.argv[1], "rb").read()
if data[:4] != b"LNOS":
    sys.exit(f"{sys.argv[1]}: not a LinnOS weight file")
sizes = [s for s in struct.unpack_from("<6I", data, 20) if s]
last_in = sizes[-2]
row = 4 * last_in
w0 = len(data) - 2 * row - 8
rows, bias = data[w0:w0 + 2 * row], data[-8:]
payload = data[HDR:w0] + rows[row:] + rows[:row] + bias[4:] + bias[:4]
head = data[:CRC_AT]
crc = zlib.crc32(payload, zlib.crc32(head))
open(sys.argv[2], "wb").write(head + struct.pack("<I", crc) + payload)
