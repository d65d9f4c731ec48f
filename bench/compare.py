#!/usr/bin/env python3
"""Tessera against Halide 21 on the benchmark apps, measured in one run.

    python3 bench/compare.py [--apps a,b] [--threads 1,2] [--runs R]
                             [--tessera-schedules manual,root,manual+fma]
                             [--halide-schedules manual,Mullapudi2016,Adams2019,Li2018]
                             [--rounds N] [--halide-results FILE.json]... [--out FILE.json]

For each app and thread count: `tessera bench APP --schedule S --threads T --json` for every
Tessera schedule, then the Halide variants (bench/halide/run.py, one fresh process each).
A Tessera schedule written `S+fma` is run with `--fp-contract` (float multiply-adds fused, as
Halide does by default). Both time the same input: the app's default input of the Halide yardstick (hbench/images.py),
written once per app to scratch .npy files, one per input (`--input FILE` for an app's only
input, `--input NAME=FILE` for each of several; `--own-inputs`: each its own built-in inputs).
With `--rounds N`, the Tessera schedules and Halide's manual schedule are measured N times in
alternation (round 1: every Tessera schedule then Halide manual; round 2: again; ...), so that a
noisy neighbour slowing the machine for a minute hits both sides; the autoschedulers run in
round 1 only (their searches take minutes). Prints a markdown table of the median over rounds
of each variant's median milliseconds, each Tessera schedule's ratio to Halide's manual
schedule (the median over rounds of the ratio within a round; < 1 means Tessera is faster;
with its range over rounds when N > 1), and the geometric mean of the ratios per thread count. `--halide-results` takes Halide variants from an earlier `run.py --out` file
instead of measuring them again (for slow autoschedulers; the table says which).
Build first: `cargo build --release -p tessera-cli`.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
APPS = ["blur", "unsharp", "harris", "histeq", "bilateral_grid", "local_laplacian",
        "interpolate", "camera_pipe", "pyramid_blend", "multigrid", "stencil_chain"]


def csv(text: str) -> list[str]:
    return [t for t in text.split(",") if t]


def shared_inputs(app: str, directory: str) -> dict[str, str]:
    """Writes the Halide yardstick's default inputs of `app` to `directory`, one `.npy` each;
    returns their paths by input name (the spec's names)."""
    sys.path.insert(0, os.path.join(HERE, "halide"))
    from hbench import driver
    from hbench.apps import APPS as HALIDE_APPS
    spec = HALIDE_APPS[app]
    return driver.write_default_inputs(spec, spec.default_width, spec.default_height, directory)


def tessera_input_flags(input_paths: dict[str, str]) -> list[str]:
    """`--input FILE` for an app's only input, `--input NAME=FILE` for each of several."""
    if len(input_paths) == 1:
        return ["--input", *input_paths.values()]
    return [flag for name, path in input_paths.items() for flag in ("--input", f"{name}={path}")]


def halide_input_flags(app: str, input_paths: dict[str, str]) -> list[str]:
    """run.py's `--input APP=FILE` for an app's only input, `--input APP:NAME=FILE` for each
    of several."""
    if len(input_paths) == 1:
        return ["--input", f"{app}={next(iter(input_paths.values()))}"]
    return [flag for name, path in input_paths.items()
            for flag in ("--input", f"{app}:{name}={path}")]


def tessera_variant(binary: str, app: str, variant: str, threads: int, runs: int,
                    input_paths: dict[str, str] | None) -> dict:
    """`variant` is a schedule name, with `+fma` for `--fp-contract` (multiply-adds fused)."""
    schedule, fma, _ = variant.partition("+fma")
    cmd = [binary, "bench", app, "--schedule", schedule, "--threads", str(threads),
           "--runs", str(runs), "--json"] + (["--fp-contract"] if fma else [])
    if input_paths:
        cmd += tessera_input_flags(input_paths)
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        return {"impl": "tessera", "app": app, "schedule": variant, "threads": threads,
                "error": (done.stderr.strip() or done.stdout.strip())[-300:]}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["impl"] = "tessera"
    result["schedule"] = variant
    return result


def halide_variants(app: str, schedules: list[str], threads: int, runs: int,
                    input_paths: dict[str, str] | None, timeout_s: float) -> list[dict]:
    cmd = [sys.executable, os.path.join(HERE, "halide", "run.py"), "--apps", app,
           "--schedules", ",".join(schedules), "--threads", str(threads), "--runs", str(runs),
           "--timeout", str(timeout_s), "--json"]
    if input_paths:
        cmd += halide_input_flags(app, input_paths)
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=os.path.join(HERE, "halide"))
    results = []
    for line in done.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            results.append(json.loads(line))
    if not results:
        results = [{"impl": "halide", "app": app, "schedule": s, "threads": threads,
                    "error": done.stderr.strip()[-300:]} for s in schedules]
    return results


def load_halide_results(paths: list[str]) -> list[dict]:
    results = []
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        for r in data["results"] if isinstance(data, dict) else data:
            r = dict(r)
            r["impl"] = "halide"
            r["from_file"] = os.path.basename(path)
            results.append(r)
    return results


def table(results: list[dict], apps: list[str], threads: list[int], tessera: list[str],
          halide: list[str]) -> str:
    """Median over rounds per variant; ratios paired within a round (see the module doc)."""
    rounds: dict[tuple[str, str, str, int], dict[int, float]] = {}
    for r in results:
        if "error" not in r and r.get("median_ms"):
            key = (r["impl"], r["app"], r["schedule"], r["threads"])
            rounds.setdefault(key, {})[r.get("round", 1)] = r["median_ms"]

    def ms(impl: str, app: str, schedule: str, t: int) -> str:
        times = rounds.get((impl, app, schedule, t))
        return f"{statistics.median(times.values()):.2f}" if times else "failed"

    columns = [f"Tessera {s}" for s in tessera] + [f"Halide {s}" for s in halide]
    columns += [f"{s} / Halide manual" for s in tessera]
    lines = ["| app | threads | " + " | ".join(columns) + " |",
             "|---|---|" + "---|" * len(columns)]
    geo: dict[tuple[str, int], list[float]] = {}
    for app in apps:
        for t in threads:
            row = [app, f"{t}"]
            row += [ms("tessera", app, s, t) for s in tessera]
            row += [ms("halide", app, s, t) for s in halide]
            base = rounds.get(("halide", app, "manual", t), {})
            for s in tessera:
                own = rounds.get(("tessera", app, s, t), {})
                paired = [own[k] / base[k] for k in own if k in base]
                if not paired:
                    row.append("–")
                    continue
                ratio = statistics.median(paired)
                geo.setdefault((s, t), []).append(ratio)
                spread = f" ({min(paired):.2f}–{max(paired):.2f})" if len(paired) > 1 else ""
                row.append(f"{ratio:.2f}{spread}")
            lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    for (s, t), ratios in sorted(geo.items()):
        mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        lines.append(f"- geometric mean of Tessera {s} / Halide manual at {t} thread(s): "
                     f"{mean:.2f} over {len(ratios)} apps")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--apps", type=csv, default=APPS)
    parser.add_argument("--threads", type=lambda s: [int(t) for t in csv(s)], default=[1, 2])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=1,
                        help="alternating measurements of Tessera and Halide manual")
    parser.add_argument("--tessera", default=os.path.join(ROOT, "target", "release", "tessera"))
    parser.add_argument("--tessera-schedules", type=csv, default=["manual", "root"])
    parser.add_argument("--halide-schedules", type=csv,
                        default=["manual", "Mullapudi2016", "Adams2019", "Li2018"])
    parser.add_argument("--halide-results", action="append", default=[],
                        help="Halide variants measured earlier (run.py --out FILE)")
    parser.add_argument("--out", help="write every result here (JSON)")
    parser.add_argument("--halide-timeout", type=float, default=1800,
                        help="seconds per Halide variant (an autoscheduler's search included)")
    parser.add_argument("--own-inputs", action="store_true",
                        help="each implementation times its own built-in input")
    args = parser.parse_args(argv)

    earlier = load_halide_results(args.halide_results)
    have = {(r["app"], r["schedule"], r["threads"]) for r in earlier}
    results = list(earlier)
    with tempfile.TemporaryDirectory() as scratch:
        for app in args.apps:
            input_paths = None if args.own_inputs else shared_inputs(app, scratch)
            for t in args.threads:
                for round_ in range(1, args.rounds + 1):
                    measured = [tessera_variant(args.tessera, app, s, t, args.runs, input_paths)
                                for s in args.tessera_schedules]
                    wanted = [s for s in args.halide_schedules if (app, s, t) not in have
                              and (round_ == 1 or s == "manual")]
                    if wanted:
                        measured += halide_variants(app, wanted, t, args.runs, input_paths,
                                                    args.halide_timeout)
                    for r in measured:
                        r["round"] = round_
                        results.append(r)
                        print(json.dumps(r), file=sys.stderr)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"load_average": os.getloadavg(), "results": results}, f, indent=1)
    print(table(results, args.apps, args.threads, args.tessera_schedules,
                args.halide_schedules))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
