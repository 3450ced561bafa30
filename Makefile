# gridcensus: the set-up commands are `make census` and `make test`.
#   make census            orders 1-7 of the Latin census, then the report check (seconds)
#   make census ORDER=8    the full census to order 8 (seconds on 2 cores)
#   make test              the whole test suite (optimised test profile)
#   make bench             criterion benches of every census, sampler and rung
#   make report            check results/ against published counts; write results/REPORT.md
#   make perf              measure the headline figures into results/perf.csv (idle machine)
#   make perf-long         the long figures (15x15 frontier, Calcudoku 9x9 tail) into
#                          results/perf_long.csv (about 15 minutes on 2 idle cores)
#   make results           regenerate every committed CSV under results/, then the report
#   make fresh             re-run the quick result jobs into a scratch copy and compare bytes
#   make references        the Calcudoku tail boards against CaDiCaL and CP-SAT (verdicts must
#                          agree; needs cadical, and ortools for CP-SAT; about 5 minutes)
#   make cluster-check     the Slurm and GNU parallel scripts against a live one-node Slurm on
#                          this machine (root; installs slurm-wlm, munge, parallel if missing)

CARGO   ?= cargo
ORDER   ?= 7
THREADS ?=
BIN     := target/release/gridcensus
THREADS_ARG := $(if $(THREADS),--threads $(THREADS),)

.PHONY: all build census test bench perf perf-long report results results-latin results-calcudoku \
        results-numbrix results-kakurasu bank clean cluster-check fresh references

all: build

build:
	$(CARGO) build --release

census: build
	$(BIN) latin census --orders 1-$(ORDER) $(THREADS_ARG)
	$(BIN) report --complete

# The benches are compiled in the test profile too (`--benches --no-run`), so the dependency
# tree is built once for the whole command, not once more for `cargo check`.
test:
	$(CARGO) test --lib --bins --tests --no-fail-fast
	$(CARGO) test --benches --no-run --quiet

perf: build
	BIN=$(BIN) sh scripts/perf.sh

perf-long: build
	BIN=$(BIN) sh scripts/perf.sh long

bench:
	$(CARGO) bench

fresh: build
	BIN=$(BIN) sh scripts/check-fresh.sh

references: build
	BIN=$(BIN) sh scripts/references-calcudoku.sh

report: build
	$(BIN) report --complete

results: build results-latin results-calcudoku results-numbrix results-kakurasu
	$(BIN) report --complete

results-latin: build
	BIN=$(BIN) THREADS_ARG="$(THREADS_ARG)" sh scripts/results-latin.sh

results-calcudoku: build
	BIN=$(BIN) THREADS_ARG="$(THREADS_ARG)" sh scripts/results-calcudoku.sh

results-numbrix: build
	BIN=$(BIN) THREADS_ARG="$(THREADS_ARG)" sh scripts/results-numbrix-census.sh
	BIN=$(BIN) THREADS_ARG="$(THREADS_ARG)" sh scripts/results-numbrix.sh

results-kakurasu: build
	BIN=$(BIN) THREADS_ARG="$(THREADS_ARG)" sh scripts/results-kakurasu.sh

bank: build
	BIN=$(BIN) THREADS_ARG="$(THREADS_ARG)" sh scripts/bank.sh

# Bounded: the whole check is killed after 20 minutes (it takes a few on 2 cores).
cluster-check: build
	timeout --kill-after=30 1200 bash scripts/cluster-check.sh

clean:
	$(CARGO) clean
