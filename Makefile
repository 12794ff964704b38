# anomaly: kernel and tensor anomaly detection in Go.
#
#   make test     vet + race-enabled tests of every package, the golearn
#                 adapter module in golearn/ included (what CI runs)
#   make bench    Go benchmarks over size grids, side-by-side with the
#                 reference tools; results in bench-out/
#   make build    the anomaly binary
#   make test-beam  vet + tests of the Apache Beam module in beam/ (its own
#                 go.mod, so the core never depends on Beam)
#   make results  bench --stats on ../shared/data (adbench and tensor), the
#                 table of docs/results.md between <!-- results:start/end --> markers
#   make bad-input  every kind of bad input run against the binary, the table
#                 of docs/bad-input.md between <!-- badinput:start/end --> markers
#   make defaults the selection protocol of the default rules on ../shared/data

GO      ?= go
PKGS    := ./...
BENCH   ?= .
COUNT   ?= 6

.PHONY: all build test test-memory test-latency sparse-table large test-golearn test-beam vet bench fmt results bad-input defaults

all: build test

# Without cgo: nothing here needs C, and a cgo build (net, imported by
# cobra's flag package) aborts under address-space limits below ~1.4 GB.
build:
	CGO_ENABLED=0 $(GO) build -o anomaly ./cmd/anomaly

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)

test: vet
	$(GO) test -race -count=1 -timeout 15m $(PKGS)
	$(MAKE) test-memory
	$(MAKE) test-golearn

# The conformance suite's Memory check (every method's memory estimate
# against what its fit and score hold) and the bound on what loading a
# model's column names allocates skip themselves under -race, which
# allocates beside the program: run them here without.
test-memory:
	$(GO) test -count=1 -timeout 5m -run '^TestConformance$$/^(Memory|[a-z0-9-]+)$$/^Memory$$' $(PKGS)
	$(GO) test -count=1 -timeout 5m -run '^TestColumnsLoadMemory$$' ./detector/

# The conformance suite's Latency check: how late every method's
# cancelled fits and scores return, and the longest time a fit goes
# without a progress report, on problems of several seconds. It times
# operations, which a loaded machine distorts, so make test skips it, and
# runs one package at a time (-p 1): two test binaries would time each other.
test-latency:
	ANOMALY_LATENCY=1 $(GO) test -p 1 -count=1 -timeout 60m -v -run '^TestConformance$$/^(Latency|[a-z0-9-]+)$$/^Latency$$' $(PKGS) | grep -E 'LATENCY|FAIL|^ok|panic'

# Issue 31's sparse-input table: every method's fit and score peak on a
# 400 × 50,000 CSR matrix beside its memory estimate, and the CSR − dense
# score difference. Minutes and 2 GB; not part of make test.
sparse-table:
	ANOMALY_SPARSE_TABLE=1 $(GO) test -count=1 -timeout 60m -run '^TestSparseTable$$' -v ./detector/all/ | grep -v '^=== RUN'

# Files larger than memory (issue 32): .npy files of LARGE_ROWS × 10
# standard-normal rows, written a chunk at a time into LARGE_DIR (never
# committed; 100 M rows take 8 GB), and the commands of the table in
# docs/large-files.md on them under /usr/bin/time -v (time and peak
# resident set). Not part of make test or CI.
LARGE_DIR  ?= /tmp/anomaly-large
LARGE_ROWS ?= 2000000 20000000 100000000

large: build
	mkdir -p $(LARGE_DIR)
	for n in $(LARGE_ROWS); do \
	  f=$(LARGE_DIR)/n$$n.npy; \
	  [ -f $$f ] || $(GO) run ./tools/bignpy -rows $$n -cols 10 -out $$f; \
	  for m in "gauss" "expose --set solver=sgd" "expose --set map=rff --set features=100" "iforest" "kde --sample 20000" "ocsvm --sample 20000"; do \
	    set -- $$m; name=$$1; shift; \
	    echo "== $$n rows: fit --method $$m"; \
	    /usr/bin/time -f "   %e s, %M kB peak" ./anomaly fit --method $$name $$@ --data $$f --out $(LARGE_DIR)/$$name.bin || exit 1; \
	  done; \
	  for m in expose iforest; do \
	    echo "== $$n rows: score with the $$m model"; \
	    /usr/bin/time -f "   %e s, %M kB peak" ./anomaly score --model $(LARGE_DIR)/$$m.bin --data $$f --out $(LARGE_DIR)/scores.csv || exit 1; \
	  done; \
	done

# golearn/ is a separate module, so users of the core library do not pull
# golearn's dependencies.
test-golearn:
	cd golearn && $(GO) vet ./... && $(GO) test -race -count=1 -timeout 10m ./...

# beam/ is a separate module (./... above does not enter it). Without -race:
# the race detector multiplies the pipelines' run time several fold.
test-beam:
	cd beam && $(GO) vet ./... && $(GO) test -count=1 -timeout 10m ./...

# Heavy benchmarks: each package's Benchmark* functions, COUNT runs each so
# benchstat can report medians and spread. Reference-tool timings come from
# the scripts in each package's testdata/ (see docs/benchmarks.md).
bench:
	mkdir -p bench-out
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(COUNT) -timeout 60m $(PKGS) | tee bench-out/go-bench.txt
	$(GO) run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da bench-out/go-bench.txt | tee bench-out/benchstat.txt

fmt:
	gofmt -w $$(git ls-files '*.go')

# The results table: every registered method on every data set of
# ../shared/data/adbench and ../shared/data/tensor under the bench protocol
# (seeds 1-3), written to bench-out/results.md and spliced into
# docs/results.md between the <!-- results:start --> and <!-- results:end -->
# markers.
RESULTS_DATA  ?= ../shared/data/adbench,../shared/data/tensor
RESULTS_FLAGS ?= --timeout 10m --stats

results: build
	mkdir -p bench-out
	./anomaly bench --data $(RESULTS_DATA) --format markdown --plot bench-out/plots $(RESULTS_FLAGS) > bench-out/results.md
	$(GO) run ./tools/splice -file docs/results.md -start '<!-- results:start -->' -end '<!-- results:end -->' < bench-out/results.md

# The "Bad input" table of docs/bad-input.md: every kind of bad input run
# against the real binary, spliced in between the <!-- badinput:start/end -->
# markers.
bad-input:
	mkdir -p bench-out
	bash cmd/anomaly/internal/cli/testdata/bad_input_table.sh > bench-out/bad-input.md
	sed -n '/^|/p' bench-out/bad-input.md | $(GO) run ./tools/splice -file docs/bad-input.md -start '<!-- badinput:start -->' -end '<!-- badinput:end -->'

# The selection protocol of the default rules (issue 11): every method's
# candidate rules on ../shared/data under the ADBench (and, for tensor
# methods, the class) protocol, seeds 1-3; per method the mean AUC of each
# rule, the leave-one-dataset-out estimate and the chosen rule. Results are
# cached in bench-out/defaults/cache.jsonl (delete it to rerun everything).
defaults:
	mkdir -p bench-out/defaults
	$(GO) run ./tools/defaults -data ../shared/data -out bench-out/defaults
