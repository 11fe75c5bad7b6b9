#!/bin/sh
# usage: plot.sh BENCH_LOG OUT.png
# The per-batch time through the whole path, CPU against the GPU side, from
# the "bench: linnos batch N cpu_ns C gpu_ns G" lines of `make bench`.
set -eu
data=$(mktemp)
trap 'rm -f "$data"' EXIT
sed -n 's/^bench: linnos batch \([0-9]*\) cpu_ns \([0-9]*\) gpu_ns \([0-9]*\)$/\1 \2 \3/p' "$1" > "$data"
[ -s "$data" ] || { echo "plot.sh: no LinnOS bench lines in $1" >&2; exit 1; }
gnuplot <<GP
set terminal pngcairo size 720,440 noenhanced
set output "$2"
set title "LinnOS NN: time per batch through the whole path"
set xlabel "batch (feature vectors)"
set ylabel "us per batch"
set logscale xy
set xtics (1, 2, 4, 8, 16, 32, 64, 128, 256)
set key top left
set grid
plot "$data" using 1:(\$2/1000) with linespoints title "CPU (in the kernel)", \
     "$data" using 1:(\$3/1000) with linespoints title "GPU side (laked's host device, one round trip)"
GP
