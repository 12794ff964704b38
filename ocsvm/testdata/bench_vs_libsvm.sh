#!/bin/sh
# Side-by-side fit times, issue 3 item 5: svm-train -s 2 (LIBSVM 3.24, one
# core, process wall time incl. parsing the svmlight file and writing the
# model; best of 3) against BenchmarkFitADBench (in-process Fit on the same
# split, both cores; mean of 3 fits) on the parity splits, nu = 0.1 and 0.5,
# same gamma, -e 0.001 -m 200. Run from the repository root:
#   sh ocsvm/testdata/bench_vs_libsvm.sh
# The machine is shared: run it when it is quiet, and compare the ratio.
set -e
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ANOMALY_WRITE_SPLITS=$dir go test ./ocsvm -run '^TestWriteSplits$' -count=1 >/dev/null
go test ./ocsvm -run XXX -bench FitADBench -benchtime 3x -count=1 > "$dir/go.txt"
printf "%-16s %4s %6s %10s %10s %7s\n" dataset nu n libsvm_s go_s go/lib
for meta in "$dir"/*.meta; do
	name=$(cut -f1 "$meta"); gamma=$(cut -f3 "$meta"); n=$(cut -f4 "$meta")
	for nu in 0.1 0.5; do
		best=999
		for r in 1 2 3; do
			t0=$(date +%s.%N)
			svm-train -s 2 -t 2 -g "$gamma" -n $nu -e 0.001 -m 200 "$dir/$name.train" "$dir/m" >/dev/null
			t1=$(date +%s.%N)
			best=$(echo "$t0 $t1 $best" | awk '{d=$2-$1; print (d<$3)?d:$3}')
		done
		ns=$(grep "FitADBench/$name/nu=$nu-" "$dir/go.txt" | awk '{print $3}')
		echo "$name $nu $n $best $ns" | awk '{g=$5/1e9; printf "%-16s %4s %6d %10.3f %10.3f %7.2f\n", $1, $2, $3, $4, g, g/$4}'
	done
done
