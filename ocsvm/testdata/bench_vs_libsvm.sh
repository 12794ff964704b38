#!/bin/sh
# Side-by-side fit times, issue 3 item 5: svm-train -s 2 (LIBSVM 3.24, one
# core; the process: parsing the svmlight file, solving, writing the model)
# against BenchmarkFitADBench (in-process Fit on the same split, both cores)
# on the parity splits, nu = 0.1 and 0.5, same gamma, -e 0.001 -m 200.
# Both sides: the run with the best wall time of 5, and the user + system
# CPU seconds of that run. Run from the
# repository root:
#   sh ocsvm/testdata/bench_vs_libsvm.sh
# The machine is shared: run it when it is quiet and compare the ratios.
set -e
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ANOMALY_WRITE_SPLITS=$dir go test ./ocsvm -run '^TestWriteSplits$' -count=1 >/dev/null
go test ./ocsvm -run XXX -bench FitADBench -benchtime 1x -count=5 > "$dir/go.txt"
printf "%-14s %4s %5s | %8s %8s %6s | %8s %8s %6s\n" dataset nu n lib_wall go_wall ratio lib_cpu go_cpu ratio
for name in 6_cardio 38_thyroid 31_satimage-2 28_pendigits 32_shuttle; do
	meta=$dir/$name.meta
	[ -f "$meta" ] || continue
	gamma=$(cut -f3 "$meta"); n=$(cut -f4 "$meta")
	for nu in 0.1 0.5; do
		best="999 0"
		for r in 1 2 3 4 5; do
			/usr/bin/time -f "%e %U %S" -o "$dir/t" svm-train -s 2 -t 2 -g "$gamma" -n $nu -e 0.001 -m 200 "$dir/$name.train" "$dir/m" >/dev/null
			best=$(awk -v b="$best" '{split(b, a, " "); if ($1 < a[1]) print $1, $2+$3; else print b}' "$dir/t")
		done
		g=$(grep "FitADBench/$name/nu=$nu-" "$dir/go.txt" | awk 'BEGIN { bw = 1e99 } {for (i = 1; i <= NF; i++) { if ($i == "ns/op") w = $(i-1); if ($i == "cpu-s/op") c = $(i-1) } if (w < bw) { bw = w; bc = c } } END { print bw/1e9, bc }')
		echo "$name $nu $n $best $g" | awk '{printf "%-14s %4s %5d | %8.3f %8.3f %6.2f | %8.3f %8.3f %6.2f\n", $1, $2, $3, $4, $6, $6/$4, $5, $7, $7/$5}'
	done
done
