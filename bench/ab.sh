#!/usr/bin/env bash
# Two builds of the `tessera` binary compared on the apps' manual schedules: each round runs
# `tessera bench` with one build then the other, and per app it prints the median over rounds
# of the paired ratio new / base (with its range), as BENCHMARKS.md reports changes.
#   usage: bench/ab.sh BASE_BINARY NEW_BINARY [ROUNDS] [THREADS] [APPS...]
#   e.g.   git worktree add ../base <rev> && cargo build --release --manifest-path ../base/Cargo.toml
#          bench/ab.sh ../base/target/release/tessera target/release/tessera 5 1 blur harris
set -euo pipefail
base=$1 new=$2 rounds=${3:-3} threads=${4:-1}
shift $(( $# < 4 ? $# : 4 ))
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(blur unsharp harris histeq bilateral_grid local_laplacian interpolate)
median_ms() {
    "$1" bench "$2" --threads "$threads" --runs 5 --json |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["median_ms"])'
}
for app in "${apps[@]}"; do
    ratios=()
    for _ in $(seq "$rounds"); do
        b=$(median_ms "$base" "$app")
        n=$(median_ms "$new" "$app")
        ratios+=("$(python3 -c "print($n / $b)")")
    done
    python3 - "$app" "${ratios[@]}" <<'PY'
import statistics, sys
r = [float(x) for x in sys.argv[2:]]
print(f"{sys.argv[1]:16} new/base median {statistics.median(r):.3f} (range {min(r):.3f}-{max(r):.3f}, {len(r)} rounds)")
PY
done
