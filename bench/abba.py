#!/usr/bin/env python3
"""Two schedules (or two builds) of one app timed in alternating rounds.

    python3 bench/abba.py APP A B [--rounds N] [--threads T] [--runs R]
                          [--tessera BIN] [--tessera-b BIN_B]

A and B are schedules as `tessera bench --schedule` takes them (a name such as `manual` or
`auto`, or a `FILE.json`). Each round times A then B, the next B then A (whatever runs first in
a round runs slower on this VM), each `tessera bench APP --schedule S --threads T --runs R
--json`. Prints every round's B / A ratio of the medians and of the minima, then the median of
those per-round ratios: the figure BENCHMARKS.md reports (< 1: B is faster). With
`--tessera-b`, B runs with that binary (two builds compared on the same schedule names).
"""

import argparse
import json
import statistics
import subprocess
import sys


def bench(binary, app, schedule, threads, runs):
    out = subprocess.run(
        [binary, "bench", app, "--schedule", schedule, "--threads", str(threads),
         "--runs", str(runs), "--json"],
        check=True, capture_output=True, text=True).stdout
    result = json.loads(out)
    return result["median_ms"], result["min_ms"]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("app")
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--tessera", default="target/release/tessera")
    parser.add_argument("--tessera-b", default=None)
    args = parser.parse_args(argv)
    variants = [(args.tessera, args.a), (args.tessera_b or args.tessera, args.b)]
    medians, minima = [], []
    for round_index in range(args.rounds):
        order = [0, 1] if round_index % 2 == 0 else [1, 0]
        times = {}
        for v in order:
            binary, schedule = variants[v]
            times[v] = bench(binary, args.app, schedule, args.threads, args.runs)
        medians.append(times[1][0] / times[0][0])
        minima.append(times[1][1] / times[0][1])
        print(f"{args.app} round {round_index + 1}: A {times[0][0]:.2f} ms, B {times[1][0]:.2f} ms,"
              f" B/A {medians[-1]:.3f} (minima {minima[-1]:.3f})")
    print(f"{args.app} {args.threads} threads, {args.rounds} rounds: B/A median "
          f"{statistics.median(medians):.3f} (minima {statistics.median(minima):.3f})")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
