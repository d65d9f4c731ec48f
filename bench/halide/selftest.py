#!/usr/bin/env python3
"""Checks the Halide benchmark scripts: every app, every schedule, at a small size.

    python3 bench/halide/selftest.py [--apps a,b] [--width W --height H]

Each variant runs through the same worker process as run.py (one run, two threads) and saves its
output. Every schedule of an app must agree with the app's plain numpy reference
(hbench/references.py: blur, histeq, camera_pipe, pyramid_blend, multigrid, stencil_chain) or,
for the apps without one, with its manual schedule, within the tolerance of
../shared/apps/README.md: exactly for the integer pipelines, within 1e-4 of the largest output
magnitude for float outputs, and for local_laplacian at most 0.1% of pixels may differ by more
than 1. Exit code 0 when everything agrees.
"""

import argparse
import sys
import tempfile

import numpy as np

from hbench import driver, variants
from hbench.cli import csv_list
from hbench.apps import APPS
from hbench.references import REFERENCES

# Odd sizes, so vector and strip tails are exercised. Apps with a size rule run the nearest
# smaller valid size (multigrid 201 x 113; camera_pipe 192 x 96, from a 224 x 120 mosaic).
DEFAULT_WIDTH, DEFAULT_HEIGHT = 203, 117

# The integer pipelines, whose outputs must match exactly.
EXACT = ("blur", "histeq", "camera_pipe", "stencil_chain")


def disagreement(app: str, expected: np.ndarray, actual: np.ndarray) -> str | None:
    """Why `actual` is not an acceptable output of `app` given `expected`, or None."""
    if expected.shape != actual.shape or expected.dtype != actual.dtype:
        return (f"shape/type {actual.shape} {actual.dtype},"
                f" expected {expected.shape} {expected.dtype}")
    if app in EXACT:
        wrong = np.count_nonzero(expected != actual)
        return f"{wrong} pixels differ" if wrong else None
    if app == "local_laplacian":
        far = np.count_nonzero(np.abs(expected.astype(np.int64) - actual.astype(np.int64)) > 1)
        return f"{far} pixels differ by more than 1" if far > 0.001 * expected.size else None
    worst = float(np.max(np.abs(expected - actual)))
    bound = 1e-4 * float(np.max(np.abs(expected)))
    return f"max difference {worst:.3g} > {bound:.3g}" if not worst <= bound else None


def check_app(app, width: int, height: int, directory: str) -> list[str]:
    """Runs every schedule of `app`; returns the failures (empty when all agree)."""
    input_paths = driver.write_default_inputs(app, *app.extents.fit_size(width, height),
                                              directory)
    outputs, failures = {}, []
    for schedule in variants.SCHEDULES:
        result = driver.run_variant(app, schedule, 2, 1, input_paths, malloc="reuse",
                                    timeout_s=1800, save_dir=directory)
        if "error" in result:
            failures.append(f"{app.name} {schedule}: {result['error']}")
        else:
            outputs[schedule] = np.load(f"{directory}/{app.name}.{schedule}.t2.npy")
    if app.name in REFERENCES:
        expected = REFERENCES[app.name]({name: np.load(path) for name, path in input_paths.items()})
        against = "numpy reference"
    elif variants.MANUAL in outputs:
        expected, against = outputs[variants.MANUAL], "manual"
    else:
        return failures
    for schedule, actual in outputs.items():
        why = disagreement(app.name, expected, actual)
        failures += [f"{app.name} {schedule} vs {against}: {why}"] if why else []
    return failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--apps", type=csv_list(APPS), default=list(APPS))
    parser.add_argument("--width", type=int, default=DEFAULT_WIDTH)
    parser.add_argument("--height", type=int, default=DEFAULT_HEIGHT)
    args = parser.parse_args()
    failures = []
    with tempfile.TemporaryDirectory() as directory:
        for name in args.apps:
            found = check_app(APPS[name], args.width, args.height, directory)
            print(f"{name}: " + ("ok" if not found else f"{len(found)} failure(s)"), flush=True)
            failures += found
    for failure in failures:
        print("FAIL", failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
