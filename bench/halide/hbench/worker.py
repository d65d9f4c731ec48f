"""Measures one variant (app x schedule) at one thread count, in this process.

    python3 -m hbench.worker --app APP --schedule S --threads N --runs R --input NAME=FILE.npy...
                             [--save-output FILE.npy] [--save-schedule FILE] [--malloc reuse]

Prints exactly one JSON object on stdout, the shape of `tessera bench --json` plus `impl`,
`autoschedule_ms`, `malloc` and `times_ms` (every timed run, for judging noise). The thread
count is fixed for the life of a process (Halide's runtime reads HL_NUM_THREADS when it starts
its thread pool), which is why the driver starts one worker per variant and thread count.

Protocol: compile once (timed: `compile_ms`; autoscheduling is timed apart), run once untimed
(thread pool start-up, first touch of the output), then R timed runs into the same output
buffer; `median_ms` and `min_ms` are over those R runs.
"""

import argparse
import ctypes
import ctypes.util
import json
import os
import statistics
import sys
import time

import halide as hl
import numpy as np

from hbench import images, variants
from hbench.app import App
from hbench.apps import APPS

# glibc mallopt parameters (malloc.h).
M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4


def keep_freed_memory() -> None:
    """Makes glibc reuse freed memory instead of returning it to the kernel.

    Halide allocates its intermediate buffers on every run; with glibc's defaults the large
    ones are fresh mmaps whose page faults (~1.3 us per 4 KiB here) are paid on every run.
    Tessera reuses its scratch memory across runs, so the fair yardstick does the same.
    """
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    if not (libc.mallopt(M_MMAP_MAX, 0) and libc.mallopt(M_TRIM_THRESHOLD, 2**31 - 1)):
        raise OSError("mallopt refused to turn off mmap allocation")


def named_path(text: str) -> tuple[str, str]:
    """An argparse type: NAME=FILE."""
    name, sep, path = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=FILE.npy, got {text!r}")
    return name, path


def load_inputs(app: App, given: list[tuple[str, str]]) -> dict[str, np.ndarray]:
    """Every input of `app` from its `.npy` file, by name, checked against the spec."""
    paths = dict(given)
    unknown = sorted(set(paths) - set(app.input_names))
    missing = [name for name in app.input_names if name not in paths]
    if unknown or missing:
        raise ValueError(f"{app.name} takes the inputs {', '.join(app.input_names)};"
                         f" unknown: {unknown or 'none'}, missing: {missing or 'none'}")
    return {spec.name: images.load_input(paths[spec.name], spec) for spec in app.inputs}


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python3 -m hbench.worker", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--app", required=True)
    parser.add_argument("--schedule", required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--input", type=named_path, action="append", required=True,
                        metavar="NAME=FILE",
                        help="the app's input NAME (.npy, [H, W] or [H, W, C]); one per input")
    parser.add_argument("--save-output", help="write the output here (.npy)")
    parser.add_argument("--save-schedule", help="write an autoscheduler's schedule source here")
    parser.add_argument("--malloc", choices=("reuse", "default"), default="reuse",
                        help="reuse: keep freed memory for the next run (default)")
    args = parser.parse_args(argv)
    if args.threads < 1 or args.runs < 1:
        parser.error("--threads and --runs must be at least 1")
    return args


def measure(args: argparse.Namespace) -> dict:
    # Read by Halide's runtime when the first parallel loop starts its thread pool.
    os.environ["HL_NUM_THREADS"] = str(args.threads)
    if args.malloc == "reuse":
        keep_freed_memory()

    if args.app not in APPS:
        raise ValueError(f"unknown app {args.app!r}; known: {', '.join(APPS)}")
    app = APPS[args.app]
    arrays = load_inputs(app, args.input)
    width, height = app.output_size_of(arrays)
    output_extents = [width, height] + ([app.output_channels] if app.output_channels else [])
    # Each buffer comes with the array that owns its memory: keep both alive.
    input_buffers = [images.to_halide(arrays[name]) for name in app.input_names]
    input_extents = [[buffer.dim(d).extent() for d in range(buffer.dimensions())]
                     for buffer, _owner in input_buffers]
    inputs = [buffer for buffer, _owner in input_buffers]

    target = hl.get_jit_target_from_environment()
    alg = app.define()
    scheduled = variants.apply(args.schedule, app, alg, target, input_extents, output_extents)
    start = time.perf_counter()
    run = scheduled.pipeline.compile_to_callable(alg.inputs + [p for p, _ in alg.params],
                                                 target)
    compile_ms = (time.perf_counter() - start) * 1e3

    output = hl.Buffer(alg.output.type(), output_extents)
    param_values = [value for _, value in alg.params]
    run(*inputs, *param_values, output)
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        run(*inputs, *param_values, output)
        times.append((time.perf_counter() - start) * 1e3)

    if args.save_output:
        np.save(args.save_output, images.from_halide(output))
    if args.save_schedule and scheduled.source is not None:
        with open(args.save_schedule, "w") as out:
            out.write(scheduled.source)
    return {"impl": "halide", "app": app.name, "schedule": args.schedule, "width": width,
            "height": height, "threads": args.threads, "compile_ms": round(compile_ms, 3),
            "autoschedule_ms": round(scheduled.autoschedule_ms, 3),
            "median_ms": round(statistics.median(times), 4), "min_ms": round(min(times), 4),
            "runs": args.runs, "malloc": args.malloc, "times_ms": [round(t, 4) for t in times]}


def main() -> None:
    print(json.dumps(measure(parse_args(sys.argv[1:]))), flush=True)


if __name__ == "__main__":
    main()
