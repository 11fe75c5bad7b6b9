#!/bin/sh
# usage: plot.sh BENCH_LOG OUT.png
# The per-batch time through the whole path, CPU against the GPU side, for
# NN, NN+1 and NN+2, from the "bench: linnos V batch N cpu_ns C gpu_ns G"
# lines of `make bench`.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for v in NN NN+1 NN+2; do
	sed -n "s/^bench: linnos $v batch \([0-9]*\) cpu_ns \([0-9]*\) gpu_ns \([0-9]*\)\$/\1 \2 \3/p" \
		"$1" > "$dir/$v"
	[ -s "$dir/$v" ] || { echo "plot.sh: no LinnOS $v bench lines in $1" >&2; exit 1; }
done
gnuplot <<GP
set terminal pngcairo size 760,480 noenhanced
set output "$2"
set title "LinnOS: time per batch through the whole path"
set xlabel "batch (feature vectors)"
set ylabel "us per batch"
set logscale xy
set xtics (1, 2, 4, 8, 16, 32, 64, 128, 256)
set key top left
set grid
plot "$dir/NN" using 1:(\$2/1000) with linespoints lc 1 pt 7 title "NN, CPU (in the kernel)", \
     "$dir/NN" using 1:(\$3/1000) with linespoints lc 1 pt 4 dt 2 title "NN, GPU side (laked's host device)", \
     "$dir/NN+1" using 1:(\$2/1000) with linespoints lc 2 pt 7 title "NN+1, CPU", \
     "$dir/NN+1" using 1:(\$3/1000) with linespoints lc 2 pt 4 dt 2 title "NN+1, GPU side", \
     "$dir/NN+2" using 1:(\$2/1000) with linespoints lc 3 pt 7 title "NN+2, CPU", \
     "$dir/NN+2" using 1:(\$3/1000) with linespoints lc 3 pt 4 dt 2 title "NN+2, GPU side"
GP
