#!/bin/bash
# Command-level timings of the tensor workloads whose run time the .npz
# reader used to dominate: `anomaly score` with trivial models, and
# `anomaly fit --method r1stm|1stm` at the default rank, on synthetic
# 12 x 10 x 8 tensor files (dataset/testdata/tensor_npz.py, seed 1) of
# n = 6,400 (49 MB) and 25,600 (197 MB) samples, stored uncompressed.
#
#   dataset/testdata/cli_readers.sh DIR REPEATS BIN [BIN...]
#
# e.g. with the binary of the commit before the reader change and of this
# one (make build writes ./anomaly):
#
#   dataset/testdata/cli_readers.sh /tmp/readers-cli 3 /tmp/anomaly-before ./anomaly
#
# The binaries run in turn for each case and repeat, so that a change in
# the machine's load hits them alike. One line per run: case, binary, wall
# s, user s, sys s, peak RSS in MB (/usr/bin/time), and the fit time the
# command prints ("-" for score).
set -euo pipefail
dir=$1
reps=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
for n in 100 6400 25600; do
	[ -f "$dir/t$n.npz" ] || /usr/bin/python3 "$here/tensor_npz.py" "$dir/t$n.npz" $n 1
done
# Trivial models, fitted on 100 samples: EXPoSE and R1SVM with one random
# feature. EXPoSE scores in chunks of rows; R1SVM's Score copies X first.
"$1" fit --method expose --set features=1 --data "$dir/t100.npz" --out "$dir/trivial-expose.bin" 2>/dev/null
"$1" fit --method r1svm --set features=1 --data "$dir/t100.npz" --out "$dir/trivial-r1svm.bin" 2>/dev/null

run() { # label binary args...
	local label=$1 bin=$2
	shift 2
	local out
	out=$( { /usr/bin/time -f "TIME %e %U %S %M" "$bin" "$@" >/dev/null; } 2>&1 )
	local t fit
	t=$(grep '^TIME' <<<"$out" | awk '{printf "%s %s %s %.0f", $2, $3, $4, $5/1024}')
	fit=$(grep -o 'in [0-9.e+-]* s;' <<<"$out" | awk '{print $2}' || true)
	printf '%-22s %-28s %s %s\n' "$label" "$(basename "$bin")" "$t" "${fit:--}"
}

printf '%-22s %-28s %s\n' case binary "wall user sys rss_MB fit_s"
for r in $(seq "$reps"); do
	for m in expose r1svm; do
		for bin in "$@"; do
			run "score $m n=6400" "$bin" score --model "$dir/trivial-$m.bin" --data "$dir/t6400.npz" --out "$dir/scores.csv"
		done
	done
	for n in 6400 25600; do
		for m in r1stm 1stm; do
			for bin in "$@"; do
				run "fit $m n=$n" "$bin" fit --method $m --data "$dir/t$n.npz" --out "$dir/model.bin"
			done
		done
	done
done
