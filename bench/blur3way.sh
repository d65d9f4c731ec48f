#!/bin/bash
# Issue 4's blur comparison in one run: Tessera `manual`, the hand-written Rust and Halide 21's
# manual schedule, back to back, ROUNDS rounds (default 5) at 1 and 2 threads; prints each
# round's medians (ms) and ratios. HALIDE=0 leaves Halide out (Tessera against the Rust only).
# Build first (see BENCHMARKS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
runs=${RUNS:-20}
median() { python3 -c "import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])['median_ms'])"; }
for t in 1 2; do
  for k in $(seq "$rounds"); do
    a=$(./target/release/tessera bench blur --threads "$t" --runs "$runs" --json | median)
    b=$(./target/native-cpu/release/rust-blur --threads "$t" --runs "$runs" --json | median)
    if [ "${HALIDE:-1}" = 0 ]; then
      python3 -c "print(f'threads $t round $k: tessera {$a:.2f} rust {$b:.2f}  tessera/rust {$a/$b:.2f}')"
      continue
    fi
    c=$(cd bench/halide && python3 run.py --apps blur --schedules manual --threads "$t" --runs "$runs" --json 2>/dev/null | grep '^{' | median)
    python3 -c "print(f'threads $t round $k: tessera {$a:.2f} rust {$b:.2f} halide {$c:.2f}  tessera/rust {$a/$b:.2f} tessera/halide {$a/$c:.2f}')"
  done
done
