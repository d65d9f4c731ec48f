"""Runs variants in fresh worker processes (`hbench.worker`) and collects their results.

One process per (app, schedule, thread count): the thread count of Halide's runtime is fixed
per process, and a crash or hang in one variant (an autoscheduler can fail on a pipeline) then
costs only that variant, which is recorded with an `error` instead of timings.
"""

import json
import os
import subprocess
import sys

import numpy as np

from hbench.app import App

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def input_file_name(app: App, name: str) -> str:
    """`APP.input.npy` for an app's only input, `APP.input.NAME.npy` when it has several."""
    return f"{app.name}.input.npy" if len(app.inputs) == 1 else f"{app.name}.input.{name}.npy"


def write_default_inputs(app: App, width: int, height: int, directory: str) -> dict[str, str]:
    """Writes the app's default inputs for a `width` x `height` output; returns their paths by
    input name."""
    paths = {}
    for name, image in app.make_inputs(width, height).items():
        paths[name] = os.path.join(directory, input_file_name(app, name))
        np.save(paths[name], image)
    return paths


def run_variant(app: App, schedule: str, threads: int, runs: int, input_paths: dict[str, str],
                *, malloc: str, timeout_s: float, save_dir: str | None = None) -> dict:
    """Measures one variant in a worker process (`input_paths`: the input files by name); on
    failure, a record with `error` set."""
    command = [sys.executable, "-m", "hbench.worker", "--app", app.name, "--schedule", schedule,
               "--threads", str(threads), "--runs", str(runs), "--malloc", malloc]
    for name, path in input_paths.items():
        command += ["--input", f"{name}={path}"]
    if save_dir:
        stem = os.path.join(save_dir, f"{app.name}.{schedule}.t{threads}")
        command += ["--save-output", stem + ".npy", "--save-schedule", stem + ".schedule.cpp"]
    failure = {"impl": "halide", "app": app.name, "schedule": schedule, "threads": threads}
    try:
        done = subprocess.run(command, cwd=PACKAGE_ROOT, capture_output=True, text=True,
                              timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return failure | {"error": f"timed out after {timeout_s:.0f} s"}
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        reason = lines[-1] if lines else f"exit code {done.returncode}"
        return failure | {"error": f"worker failed (exit code {done.returncode}): {reason}"}
    return json.loads(done.stdout.strip().splitlines()[-1])
