#!/usr/bin/env python3
"""Tessera against Halide 21 on the benchmark apps, measured in one run.

    python3 bench/compare.py [--apps a,b] [--threads 1,2] [--runs R]
                             [--tessera-schedules manual,root,manual+fma]
                             [--halide-schedules manual,Mullapudi2016,Adams2019,Li2018]
                             [--rounds N] [--halide-every-round manual,Li2018]
                             [--halide-results [SCHEDULES=]FILE.json]... [--out FILE.json]
                             [--autoschedule-table]

For each app and thread count: `tessera bench APP --schedule S --threads T --json` for every
Tessera schedule, then the Halide variants (bench/halide/run.py, one fresh process each).
A Tessera schedule written `S+fma` is run with `--fp-contract` (float multiply-adds fused, as
Halide does by default). Both time the same input: the app's default input of the Halide
yardstick (hbench/images.py), written once per app to scratch .npy files, one per input
(`--input FILE` for an app's only input, `--input NAME=FILE` for each of several;
`--own-inputs`: each its own built-in inputs).

With `--rounds N`, the Tessera schedules and Halide's manual schedule are measured N times in
alternation (round 1: every Tessera schedule then Halide manual; round 2: the same in reverse
order, since whatever runs first in a round runs slower; ...), so that a noisy neighbour slowing
the machine for a minute hits both sides. The other Halide variants run
in round 1 only (Adams2019's search takes minutes), unless named in `--halide-every-round`
(default: manual; Mullapudi2016 and Li2018 search in well under a second).

Prints a markdown table of the median over rounds of each variant's median milliseconds, each
Tessera schedule's ratio to Halide's manual schedule (the median over rounds of the ratio within
a round; < 1 means Tessera is faster; with its range over rounds when there are several), and
the geometric mean of the ratios per thread count.

`--halide-results FILE.json` takes Halide variants from an earlier `run.py --out` or
`compare.py --out` file instead of measuring them again (for slow autoschedulers); written
`Adams2019,Li2018=FILE.json`, only those schedules are taken from it. Tessera rows in the file
are ignored. A variant from a file has no round: it is paired with every round of the other side
and marked † in the tables, whose footnotes name the file (and any size that differs from
Tessera's).

`--autoschedule-table` adds issue 16's table (automatic scheduling). The Tessera schedules
default to manual,auto,auto-greedy; every round also runs `tessera autoschedule APP --algorithm
dp|greedy --threads T --json`, timed with its whole process (wall ms) beside the `search_ms` it
reports. Per app and thread count: Tessera manual, auto and auto-greedy ms, the fastest Halide
autoscheduler's ms (median over rounds) and which, and the ratios auto / manual, auto-greedy /
manual and auto / that autoscheduler (each the median over rounds of the ratio within a round, as
above); then per thread count each ratio's geometric mean and how many apps are above 1.0, beside
issue 16's bars; then the search times, Tessera's beside each Halide autoscheduler's
`autoschedule_ms` (one search per process, paid again in every round it runs in).

Run with the Python that has Halide (bench/halide/README.md). Build first:
`cargo build --release -p tessera-cli`.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
APPS = ["blur", "unsharp", "harris", "histeq", "bilateral_grid", "local_laplacian",
        "interpolate", "camera_pipe", "pyramid_blend", "multigrid", "stencil_chain"]
HALIDE_AUTOSCHEDULERS = ["Mullapudi2016", "Adams2019", "Li2018"]
# Tessera's automatic schedules by `tessera autoschedule --algorithm`.
TESSERA_SEARCHES = {"dp": "auto", "greedy": "auto-greedy"}
# Issue 16's bars: the largest acceptable geometric mean of each ratio, and of the slowest
# `tessera autoschedule` (whole command, ms).
RATIO_BARS = {("auto", "manual"): 1.05, ("auto-greedy", "manual"): 1.3,
              ("auto", "best Halide autoscheduler"): 0.80}
SEARCH_BAR_MS = 1000.0
# The round of a result taken from an earlier file: it pairs with every round.
FROM_FILE = None
FROM_FILE_MARK = "†"

Key = tuple[str, str, str, int]  # (impl, app, schedule, threads)


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


def tessera_search(binary: str, app: str, algorithm: str, threads: int) -> dict:
    """Times `tessera autoschedule APP --algorithm ALGORITHM --json`, the whole process
    (`wall_ms`: start-up, pipeline construction and search), beside the `search_ms` it reports."""
    cmd = [binary, "autoschedule", app, "--algorithm", algorithm, "--threads", str(threads),
           "--json"]
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall_ms = (time.perf_counter() - started) * 1e3
    result = {"impl": "tessera-search", "app": app, "algorithm": algorithm, "threads": threads}
    if done.returncode != 0:
        return result | {"error": (done.stderr.strip() or done.stdout.strip())[-300:]}
    return result | {"wall_ms": round(wall_ms, 3),
                     "search_ms": json.loads(done.stdout)["search_ms"]}


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


def earlier_results_source(text: str) -> tuple[str, list[str] | None]:
    """An argparse type: FILE.json (every Halide row) or SCHEDULES=FILE.json (those only)."""
    schedules, sep, path = text.rpartition("=")
    return (path, csv(schedules)) if sep else (text, None)


def load_halide_results(sources: list[tuple[str, list[str] | None]]) -> list[dict]:
    """The Halide rows of earlier result files (their Tessera rows left out), each marked with
    its file and with round FROM_FILE."""
    results = []
    for path, schedules in sources:
        with open(path) as f:
            data = json.load(f)
        for r in data["results"] if isinstance(data, dict) else data:
            if r.get("impl", "halide") != "halide":
                continue
            if schedules is not None and r["schedule"] not in schedules:
                continue
            results.append(r | {"impl": "halide", "from_file": os.path.basename(path),
                                "round": FROM_FILE})
    return results


def times_by_round(results: list[dict]) -> dict[Key, dict[int | None, float]]:
    """Each timed variant's `median_ms` by round (FROM_FILE for earlier files); several results
    of one variant in one round (or from files) give their median."""
    gathered: dict[Key, dict[int | None, list[float]]] = {}
    for r in results:
        if "error" in r or not r.get("median_ms"):
            continue
        key = (r["impl"], r["app"], r["schedule"], r["threads"])
        gathered.setdefault(key, {}).setdefault(r.get("round", 1), []).append(r["median_ms"])
    return {key: {round_: statistics.median(ms) for round_, ms in rounds.items()}
            for key, rounds in gathered.items()}


def median_over_rounds(times: dict[int | None, float] | None) -> float | None:
    return statistics.median(times.values()) if times else None


def paired_ratios(numerator: dict[int | None, float],
                  denominator: dict[int | None, float]) -> list[float]:
    """numerator / denominator within each round both ran in; a side from an earlier file
    (round FROM_FILE) pairs with every round of the other."""
    rounds = {k for k in (*numerator, *denominator) if k is not FROM_FILE} or {FROM_FILE}
    ratios = []
    for k in rounds:
        top = numerator.get(k, numerator.get(FROM_FILE))
        bottom = denominator.get(k, denominator.get(FROM_FILE))
        if top is not None and bottom is not None:
            ratios.append(top / bottom)
    return ratios


def geometric_mean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def ratio_cell(paired: list[float], from_file: bool) -> str:
    """The median ratio, its range when there are several, † when a side came from a file."""
    if not paired:
        return "–"
    spread = f" ({min(paired):.2f}–{max(paired):.2f})" if len(paired) > 1 else ""
    return f"{statistics.median(paired):.2f}{spread}{FROM_FILE_MARK if from_file else ''}"


def ms_cell(times: dict[int | None, float] | None) -> str:
    ms = median_over_rounds(times)
    if ms is None:
        return "failed"
    return f"{ms:.2f}{FROM_FILE_MARK if FROM_FILE in times else ''}"


def from_file_notes(results: list[dict], apps: list[str], threads: list[int]) -> list[str]:
    """Footnotes naming the file of each variant taken from one (grouped by schedule and file),
    and any whose size differs from Tessera's run of the same app."""
    tessera_sizes = {(r["app"], r["threads"]): (r["width"], r["height"]) for r in results
                     if r["impl"] == "tessera" and "width" in r}
    where: dict[tuple[str, str], list[str]] = {}
    notes = []
    for r in results:
        if r.get("from_file") is None or r["app"] not in apps or r["threads"] not in threads:
            continue
        where.setdefault((r["schedule"], r["from_file"]), []).append(f"{r['app']} {r['threads']}T")
        size, ours = (r.get("width"), r.get("height")), tessera_sizes.get((r["app"], r["threads"]))
        if "error" not in r and ours and size != ours:
            notes.append(f"- {r['app']} {r['schedule']} {r['threads']}T from {r['from_file']}"
                         f" ran {size[0]} x {size[1]}, Tessera {ours[0]} x {ours[1]}")
    return [f"- {FROM_FILE_MARK} {schedule} from {path}: {', '.join(dict.fromkeys(cells))}"
            for (schedule, path), cells in where.items()] + notes


def table_header(columns: list[str]) -> list[str]:
    """The markdown header of a table with a row per app and thread count."""
    return ["| app | threads | " + " | ".join(columns) + " |", "|---|---|" + "---|" * len(columns)]


def table(results: list[dict], apps: list[str], threads: list[int], tessera: list[str],
          halide: list[str]) -> str:
    """Median over rounds per variant; ratios to Halide manual paired within a round (see the
    module doc)."""
    rounds = times_by_round(results)
    columns = [f"Tessera {s}" for s in tessera] + [f"Halide {s}" for s in halide]
    columns += [f"{s} / Halide manual" for s in tessera]
    lines = table_header(columns)
    geo: dict[tuple[str, int], list[float]] = {}
    for app in apps:
        for t in threads:
            row = [app, f"{t}"]
            row += [ms_cell(rounds.get(("tessera", app, s, t))) for s in tessera]
            row += [ms_cell(rounds.get(("halide", app, s, t))) for s in halide]
            base = rounds.get(("halide", app, "manual", t), {})
            for s in tessera:
                paired = paired_ratios(rounds.get(("tessera", app, s, t), {}), base)
                row.append(ratio_cell(paired, FROM_FILE in base))
                if paired:
                    geo.setdefault((s, t), []).append(statistics.median(paired))
            lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    for (s, t), ratios in sorted(geo.items()):
        lines.append(f"- geometric mean of Tessera {s} / Halide manual at {t} thread(s): "
                     f"{geometric_mean(ratios):.2f} over {len(ratios)} apps")
    return "\n".join(lines + from_file_notes(results, apps, threads))


def best_halide_autoscheduler(rounds: dict[Key, dict[int | None, float]], app: str,
                              threads: int) -> str | None:
    """The Halide autoscheduler with the lowest median over rounds for `app` at `threads`."""
    measured = {s: median_over_rounds(rounds.get(("halide", app, s, threads)))
                for s in HALIDE_AUTOSCHEDULERS}
    measured = {s: ms for s, ms in measured.items() if ms is not None}
    return min(measured, key=measured.get) if measured else None


def autoschedule_ratios(rounds: dict[Key, dict[int | None, float]], app: str,
                        threads: int) -> dict[tuple[str, str], tuple[list[float], bool]]:
    """Issue 16's three ratios for one app and thread count, by (numerator, denominator) as in
    RATIO_BARS: the within-round ratios, and whether a side came from an earlier file."""
    tessera = {s: rounds.get(("tessera", app, s, threads), {})
               for s in ("manual", "auto", "auto-greedy")}
    best = best_halide_autoscheduler(rounds, app, threads)
    sides = {**tessera, "best Halide autoscheduler":
             rounds.get(("halide", app, best, threads), {}) if best else {}}
    return {(top, bottom): (paired_ratios(sides[top], sides[bottom]),
                            FROM_FILE in sides[top] or FROM_FILE in sides[bottom])
            for top, bottom in RATIO_BARS}


def ratio_summary(medians: dict[tuple[str, str, int], list[float]]) -> list[str]:
    """Per ratio and thread count: the geometric mean, the apps above 1.0, and the bar."""
    lines = []
    for (top, bottom, t), ratios in sorted(medians.items(), key=lambda item: item[0][2]):
        above = sum(r > 1.0 for r in ratios)
        bar = RATIO_BARS[(top, bottom)]
        lines.append(f"- {t} thread(s), {top} / {bottom}: geometric mean"
                     f" {geometric_mean(ratios):.2f} over {len(ratios)} apps (bar ≤ {bar:.2f}),"
                     f" {above} app(s) above 1.0")
    return lines


def autoschedule_ratio_table(results: list[dict], apps: list[str], threads: list[int]) -> str:
    """Issue 16's table: Tessera manual, auto and auto-greedy against each other and against
    the fastest Halide autoscheduler, with geometric means and the apps above 1.0."""
    rounds = times_by_round(results)
    columns = ["Tessera manual", "Tessera auto", "Tessera auto-greedy",
               "best Halide autoscheduler"] + [f"{top} / {bottom}" for top, bottom in RATIO_BARS]
    lines = table_header(columns)
    medians: dict[tuple[str, str, int], list[float]] = {}
    for app in apps:
        for t in threads:
            row = [app, f"{t}"]
            row += [ms_cell(rounds.get(("tessera", app, s, t)))
                    for s in ("manual", "auto", "auto-greedy")]
            best = best_halide_autoscheduler(rounds, app, t)
            row.append(f"{ms_cell(rounds[('halide', app, best, t)])} {best}" if best else "failed")
            for (top, bottom), (paired, from_file) in autoschedule_ratios(rounds, app, t).items():
                row.append(ratio_cell(paired, from_file))
                if paired:
                    medians.setdefault((top, bottom, t), []).append(statistics.median(paired))
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines + [""] + ratio_summary(medians))


def search_time_table(results: list[dict], apps: list[str], threads: list[int]) -> str:
    """`tessera autoschedule` wall ms (its reported search_ms in brackets; medians over rounds)
    beside each Halide autoscheduler's `autoschedule_ms`, and the slowest Tessera command."""
    searches: dict[tuple[str, str, int], list[dict]] = {}
    for r in results:
        if r["impl"] == "tessera-search" and "error" not in r:
            searches.setdefault((r["app"], r["algorithm"], r["threads"]), []).append(r)
    halide: dict[tuple[str, str, int], list[dict]] = {}
    for r in results:
        if r["impl"] == "halide" and r["schedule"] in HALIDE_AUTOSCHEDULERS:
            halide.setdefault((r["app"], r["schedule"], r["threads"]), []).append(r)
    columns = [f"tessera autoschedule --algorithm {a} ms (search_ms)" for a in TESSERA_SEARCHES]
    columns += [f"Halide {s} autoschedule_ms" for s in HALIDE_AUTOSCHEDULERS]
    lines = table_header(columns)
    slowest = (0.0, "")
    for app in apps:
        for t in threads:
            row = [app, f"{t}"]
            for algorithm in TESSERA_SEARCHES:
                runs = searches.get((app, algorithm, t))
                if not runs:
                    row.append("failed")
                    continue
                wall = statistics.median(r["wall_ms"] for r in runs)
                search = statistics.median(r["search_ms"] for r in runs)
                row.append(f"{wall:.0f} ({search:.1f})")
                slowest = max(slowest, (max(r["wall_ms"] for r in runs), f"{app} {algorithm} {t}T"))
            for s in HALIDE_AUTOSCHEDULERS:
                runs = halide.get((app, s, t), [])
                searched = [r["autoschedule_ms"] for r in runs if r.get("autoschedule_ms")]
                if not searched:
                    row.append("failed" if runs else "–")
                    continue
                mark = FROM_FILE_MARK if any(r.get("from_file") for r in runs) else ""
                row.append(f"{statistics.median(searched):.0f}{mark}")
            lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append(f"- slowest `tessera autoschedule` (whole command, any round): {slowest[0]:.0f}"
                 f" ms, {slowest[1] or '–'} (bar ≤ {SEARCH_BAR_MS:.0f} ms)")
    return "\n".join(lines)


def autoschedule_table(results: list[dict], apps: list[str], threads: list[int]) -> str:
    """Issue 16's ratio table, then the search times, then where earlier results came from."""
    return "\n".join([autoschedule_ratio_table(results, apps, threads), "",
                      search_time_table(results, apps, threads),
                      *from_file_notes(results, apps, threads)])


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--apps", type=csv, default=APPS)
    parser.add_argument("--threads", type=lambda s: [int(t) for t in csv(s)], default=[1, 2])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=1,
                        help="alternating measurements of Tessera and Halide manual")
    parser.add_argument("--tessera", default=os.path.join(ROOT, "target", "release", "tessera"))
    parser.add_argument("--tessera-schedules", type=csv,
                        help="default: manual,root (manual,auto,auto-greedy with"
                        " --autoschedule-table)")
    parser.add_argument("--halide-schedules", type=csv,
                        default=["manual", *HALIDE_AUTOSCHEDULERS])
    parser.add_argument("--halide-every-round", type=csv, default=["manual"],
                        help="Halide variants measured in every round, not round 1 only")
    parser.add_argument("--halide-results", type=earlier_results_source, action="append",
                        default=[], metavar="[SCHEDULES=]FILE",
                        help="Halide variants measured earlier (run.py or compare.py --out)")
    parser.add_argument("--autoschedule-table", action="store_true",
                        help="add issue 16's table: auto and auto-greedy against manual and"
                        " Halide's autoschedulers, and the search times")
    parser.add_argument("--out", help="write every result here (JSON)")
    parser.add_argument("--halide-timeout", type=float, default=1800,
                        help="seconds per Halide variant (an autoscheduler's search included)")
    parser.add_argument("--own-inputs", action="store_true",
                        help="each implementation times its own built-in input")
    args = parser.parse_args(argv)
    if args.tessera_schedules is None:
        args.tessera_schedules = (["manual", "auto", "auto-greedy"] if args.autoschedule_table
                                  else ["manual", "root"])
    missing = {"manual", "auto", "auto-greedy"} - set(args.tessera_schedules)
    if args.autoschedule_table and missing:
        parser.error(f"--autoschedule-table needs Tessera schedules {', '.join(sorted(missing))}")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    earlier = load_halide_results(args.halide_results)
    have = {(r["app"], r["schedule"], r["threads"]) for r in earlier}
    results = list(earlier)
    with tempfile.TemporaryDirectory() as scratch:
        for app in args.apps:
            input_paths = None if args.own_inputs else shared_inputs(app, scratch)
            for t in args.threads:
                for round_ in range(1, args.rounds + 1):
                    wanted = [s for s in args.halide_schedules if (app, s, t) not in have
                              and (round_ == 1 or s in args.halide_every_round)]
                    variants = [lambda s=s: [tessera_variant(args.tessera, app, s, t, args.runs,
                                                             input_paths)]
                                for s in args.tessera_schedules]
                    if args.autoschedule_table:
                        variants += [lambda a=a: [tessera_search(args.tessera, app, a, t)]
                                     for a in TESSERA_SEARCHES]
                    if wanted:
                        variants.append(lambda: halide_variants(app, wanted, t, args.runs,
                                                                input_paths, args.halide_timeout))
                    # Whatever runs first in a round runs 10-30% slower on these VMs (cold
                    # caches and frequency), so even rounds run the variants in reverse order.
                    if round_ % 2 == 0:
                        variants.reverse()
                    measured = [r for variant in variants for r in variant()]
                    for r in measured:
                        r["round"] = round_
                        results.append(r)
                        print(json.dumps(r), file=sys.stderr)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"load_average": os.getloadavg(), "results": results}, f, indent=1)
    print(table(results, args.apps, args.threads, args.tessera_schedules,
                args.halide_schedules))
    if args.autoschedule_table:
        print()
        print(autoschedule_table(results, args.apps, args.threads))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
