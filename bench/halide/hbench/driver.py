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


def write_default_input(app: App, width: int, height: int, directory: str) -> str:
    """Writes the app's default input for a `width` x `height` output; returns its path."""
    path = os.path.join(directory, f"{app.name}.input.npy")
    np.save(path, app.make_input(width, height))
    return path


def run_variant(app: App, schedule: str, threads: int, runs: int, input_path: str, *,
                malloc: str, timeout_s: float, save_dir: str | None = None) -> dict:
    """Measures one variant in a worker process; on failure, a record with `error` set."""
    command = [sys.executable, "-m", "hbench.worker", "--app", app.name, "--schedule", schedule,
               "--threads", str(threads), "--runs", str(runs), "--input", input_path,
               "--malloc", malloc]
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
