#!/usr/bin/env python3
"""Times Halide 21 on Tessera's benchmark apps: manual schedule and three autoschedulers.

    python3 bench/halide/run.py [--apps a,b] [--schedules s,t] [--threads 1,2] [--runs R]
                                [--width W --height H] [--input APP[:NAME]=FILE.npy]...
                                [--save-outputs DIR] [--out FILE.json] [--json]

Every (app, schedule, thread count) runs in its own fresh process: compiled once, run once
untimed, then R timed runs (see hbench/worker.py). With --json, one JSON object per variant on
stdout, the shape of `tessera bench --json` plus "impl": "halide"; otherwise progress lines and
a markdown table of median milliseconds. --out writes all results with a description of the
machine, for results-<date>.json.
"""

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import sys
import tempfile

import halide as hl

from hbench import driver, variants
from hbench.cli import csv_list
from hbench.apps import APPS


def app_input(text: str) -> tuple[str, str, str]:
    """An argparse type: APP=FILE (an app's only input) or APP:NAME=FILE (its input NAME).

    Returns (app, input name, path)."""
    target, sep, path = text.partition("=")
    app, colon, name = target.partition(":")
    if not sep or app not in APPS:
        raise argparse.ArgumentTypeError(
            f"expected APP=FILE.npy or APP:NAME=FILE.npy with APP in {', '.join(APPS)}")
    names = APPS[app].input_names
    if not colon and len(names) != 1:
        raise argparse.ArgumentTypeError(
            f"{app} has several inputs: give each as {app}:NAME=FILE, NAME in {', '.join(names)}")
    if colon and name not in names:
        raise argparse.ArgumentTypeError(f"{app} has no input {name!r}; its inputs:"
                                         f" {', '.join(names)}")
    return app, name or names[0], path


def given_input_paths(given: list[tuple[str, str, str]]) -> dict[str, dict[str, str]]:
    """The --input files by app and input name; every input of an app given, or none."""
    paths: dict[str, dict[str, str]] = {}
    for app, name, path in given:
        paths.setdefault(app, {})[name] = path
    for app, named in paths.items():
        missing = [name for name in APPS[app].input_names if name not in named]
        if missing:
            raise SystemExit(f"run.py: --input gives some inputs of {app} but not"
                             f" {', '.join(missing)}")
    return paths


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--apps", type=csv_list(APPS), default=list(APPS))
    parser.add_argument("--schedules", type=csv_list(variants.SCHEDULES),
                        default=list(variants.SCHEDULES))
    parser.add_argument("--threads", type=csv_list(None, int), default=[1, 2])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--width", type=int, help="output width (default: each app's own)")
    parser.add_argument("--height", type=int, help="output height (default: each app's own)")
    parser.add_argument("--input", type=app_input, action="append", default=[],
                        metavar="APP[:NAME]=FILE",
                        help="use this .npy file as APP's input NAME (sets its size); NAME may"
                        " be left out when APP has one input")
    parser.add_argument("--save-outputs", metavar="DIR",
                        help="write inputs, outputs and autoscheduled schedules to DIR")
    parser.add_argument("--out", metavar="FILE", help="write all results here (JSON)")
    parser.add_argument("--json", action="store_true", help="one JSON object per variant")
    parser.add_argument("--malloc", choices=("reuse", "default"), default="reuse",
                        help="reuse: glibc keeps freed memory across runs (default)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per variant")
    args = parser.parse_args(argv)
    if (args.width is None) != (args.height is None):
        parser.error("give both --width and --height, or neither")
    if args.runs < 1 or min(args.threads, default=0) < 1:
        parser.error("--runs and every --threads value must be at least 1")
    return args


def requested_size(app, args: argparse.Namespace) -> tuple[int, int]:
    """--width/--height, rounded down to the app's nearest valid output size (multigrid needs
    8k + 1, camera_pipe multiples of 32), else the app's default size."""
    if args.width is None:
        return app.default_width, app.default_height
    fitted = app.extents.fit_size(args.width, args.height)
    if fitted != (args.width, args.height):
        print(f"{app.name}: {args.width} x {args.height} is not a valid output size; running"
              f" {fitted[0]} x {fitted[1]}", file=sys.stderr)
    return fitted


def machine() -> dict:
    """What the numbers were measured on."""
    with open("/proc/cpuinfo") as cpuinfo:
        models = [line.split(":", 1)[1].strip() for line in cpuinfo
                  if line.startswith("model name")]
    return {"cpu": models[0] if models else platform.processor(), "cpus": os.cpu_count(),
            "halide": importlib.metadata.version("halide"), "python": platform.python_version(),
            "target": str(hl.get_jit_target_from_environment()), "load_average": os.getloadavg()}


def markdown_table(results: list[dict], schedules: list[str], threads: list[int]) -> str:
    """Median ms per app (rows) and schedule x thread count (columns); failures marked."""
    columns = [(s, t) for s in schedules for t in threads]
    cell = {(r["app"], r["schedule"], r["threads"]): r for r in results}
    lines = ["| app | " + " | ".join(f"{s} {t}T" for s, t in columns) + " |",
             "|---|" + "---:|" * len(columns)]
    for app in dict.fromkeys(r["app"] for r in results):
        row = []
        for s, t in columns:
            r = cell.get((app, s, t))
            row.append("" if r is None else "failed" if "error" in r else f"{r['median_ms']:.2f}")
        lines.append(f"| {app} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def main() -> None:
    args = parse_args(sys.argv[1:])
    given_inputs = given_input_paths(args.input)
    sizes = {name: requested_size(APPS[name], args) for name in args.apps
             if name not in given_inputs}
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    about = machine()
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        input_dir = args.save_outputs or scratch
        if args.save_outputs:
            os.makedirs(args.save_outputs, exist_ok=True)
        for name in args.apps:
            app = APPS[name]
            input_paths = given_inputs.get(name) or driver.write_default_inputs(
                app, *sizes[name], input_dir)
            for schedule in args.schedules:
                for threads in args.threads:
                    result = driver.run_variant(app, schedule, threads, args.runs, input_paths,
                                                malloc=args.malloc, timeout_s=args.timeout,
                                                save_dir=args.save_outputs)
                    results.append(result)
                    if args.json:
                        print(json.dumps(result), flush=True)
                    elif "error" in result:
                        print(f"{name} {schedule} {threads}T: {result['error']}", flush=True)
                    else:
                        print(f"{name} {schedule} {threads}T: median {result['median_ms']:.3f} ms,"
                              f" min {result['min_ms']:.3f} ms, compile {result['compile_ms']:.0f}"
                              f" ms, autoschedule {result['autoschedule_ms']:.0f} ms", flush=True)
    if not args.json:
        print()
        print(markdown_table(results, args.schedules, args.threads))
    if args.out:
        document = {"started": started, "machine": about,
                    "load_average_end": os.getloadavg(), "runs": args.runs,
                    "malloc": args.malloc, "autoscheduler_params": variants.AUTOSCHEDULER_PARAMS,
                    "results": results}
        with open(args.out, "w") as out:
            json.dump(document, out, indent=1)
            out.write("\n")


if __name__ == "__main__":
    main()
