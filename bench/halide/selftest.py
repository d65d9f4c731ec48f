#!/usr/bin/env python3
"""Checks the Halide benchmark scripts: every app, every schedule, at a small size.

    python3 bench/halide/selftest.py [--apps a,b] [--width W --height H]

Each variant runs through the same worker process as run.py (one run, two threads) and saves its
output. All schedules of an app must agree with its manual schedule, within the tolerance of
../shared/apps/README.md: exactly for the integer pipelines (blur, histeq), within 1e-4 of
the largest output magnitude for float outputs, and for local_laplacian at most 0.1% of pixels
may differ by more than 1. The manual schedules of blur and histeq are also checked exactly
against the plain numpy references below. Exit code 0 when everything agrees.
"""

import argparse
import sys
import tempfile

import numpy as np

from hbench import driver, variants
from hbench.cli import csv_list
from hbench.apps import APPS

# Odd sizes, so vector and strip tails are exercised.
DEFAULT_WIDTH, DEFAULT_HEIGHT = 203, 117


def blur_reference(image: np.ndarray) -> np.ndarray:
    """blur.md in numpy: uint16 sums wrap, division rounds down."""
    rows = (image[:, :-2] + image[:, 1:-1] + image[:, 2:]) // 3
    return (rows[:-2] + rows[1:-1] + rows[2:]) // 3


def histeq_reference(image: np.ndarray) -> np.ndarray:
    """histeq.md in numpy: int32 counts, float32 scale, rounding half to even."""
    n = np.int32(image.size)
    hist = np.bincount(image.ravel(), minlength=256).astype(np.int32)
    cdf = np.cumsum(hist, dtype=np.int32)
    cmin = min(n, np.where(hist > 0, cdf, n).min())
    scale = np.float32(255) / np.float32(max(n - cmin, 1))
    level = np.rint((cdf - cmin).astype(np.float32) * scale)
    lut = np.clip(level, np.float32(0), np.float32(255)).astype(np.uint8)
    return lut[image]


REFERENCES = {"blur": blur_reference, "histeq": histeq_reference}


def disagreement(app: str, expected: np.ndarray, actual: np.ndarray) -> str | None:
    """Why `actual` is not an acceptable output of `app` given `expected`, or None."""
    if expected.shape != actual.shape or expected.dtype != actual.dtype:
        return (f"shape/type {actual.shape} {actual.dtype},"
                f" expected {expected.shape} {expected.dtype}")
    if app in ("blur", "histeq"):
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
    input_path = driver.write_default_input(app, width, height, directory)
    outputs, failures = {}, []
    for schedule in variants.SCHEDULES:
        result = driver.run_variant(app, schedule, 2, 1, input_path, malloc="reuse",
                                    timeout_s=1800, save_dir=directory)
        if "error" in result:
            failures.append(f"{app.name} {schedule}: {result['error']}")
        else:
            outputs[schedule] = np.load(f"{directory}/{app.name}.{schedule}.t2.npy")
    if variants.MANUAL not in outputs:
        return failures
    expected = outputs[variants.MANUAL]
    if app.name in REFERENCES:
        why = disagreement(app.name, REFERENCES[app.name](np.load(input_path)), expected)
        failures += [f"{app.name} manual vs numpy reference: {why}"] if why else []
    for schedule, actual in outputs.items():
        why = disagreement(app.name, expected, actual)
        failures += [f"{app.name} {schedule} vs manual: {why}"] if why else []
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
