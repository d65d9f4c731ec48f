"""The schedule variants timed against Tessera: the manual schedule and three autoschedulers.

Autoschedulers are plugins shipped as shared libraries inside the halide wheel
(`<site-packages>/halide/lib64/libautoschedule_<name>.so`); each is loaded once with
`hl.load_plugin` and then applied with `Pipeline.apply_autoscheduler`. They need estimates on
the input's dimensions, the output's region and every scalar parameter, which are set here to
the size actually being run. Anderson2021, also in the wheel, schedules for GPUs only and is
not a variant.
"""

import glob
import os
import time
from dataclasses import dataclass

import halide as hl

from hbench.app import Algorithm, App

MANUAL = "manual"
AUTOSCHEDULERS = ("Mullapudi2016", "Adams2019", "Li2018")
SCHEDULES = (MANUAL,) + AUTOSCHEDULERS

# Both threads of the machine. Every autoscheduler plans for this much parallelism; the same
# schedule is then timed at 1 and at 2 threads.
PARALLELISM = 2

# Mullapudi2016 sizes its tiles to fit this cache. The machine has 2 MiB of L2 per core and a
# 105 MiB L3 shared with the rest of the host. Of 1, 2, 8 and 16 MiB (its default), 16 MiB was
# best or tied on every app measured at full size (bilateral_grid: 1.5x faster than 2 MiB).
MULLAPUDI_CACHE_BYTES = 16 * 1024 * 1024

AUTOSCHEDULER_PARAMS = {
    "Mullapudi2016": {"parallelism": PARALLELISM,
                      "last_level_cache_size": MULLAPUDI_CACHE_BYTES},
    # The wheel's Adams2019 carries its default cost-model weights built in (weights_path unset).
    "Adams2019": {"parallelism": PARALLELISM},
    "Li2018": {"parallelism": PARALLELISM},
}


def plugin_path(autoscheduler: str) -> str:
    """The shared library of `autoscheduler` inside the installed halide package."""
    pattern = os.path.join(hl.install_dir(), "lib*", f"libautoschedule_{autoscheduler.lower()}.so")
    matches = glob.glob(pattern)
    if not matches:
        raise FileNotFoundError(f"no {autoscheduler} plugin in the halide wheel ({pattern})")
    return matches[0]


def set_estimates(alg: Algorithm, input_extents: list[list[int]],
                  output_extents: list[int]) -> None:
    """Estimates for the autoschedulers: the real input and output sizes, the default params."""
    for image, extents in zip(alg.inputs, input_extents, strict=True):
        for dim, extent in enumerate(extents):
            image.dim(dim).set_estimate(0, extent)
    alg.output.set_estimates([hl.Range(0, extent) for extent in output_extents])
    for param, value in alg.params:
        param.set_estimate(value)


@dataclass
class Scheduled:
    """A scheduled pipeline, the time spent autoscheduling it (0 for the manual schedule) and,
    for an autoscheduler, the C++ source of the schedule it chose."""

    pipeline: hl.Pipeline
    autoschedule_ms: float
    source: str | None


def apply(schedule: str, app: App, alg: Algorithm, target: hl.Target,
          input_extents: list[list[int]], output_extents: list[int]) -> Scheduled:
    """Schedules `alg` with `schedule`; `input_extents` has one list per input."""
    pipeline = hl.Pipeline(alg.output)
    if schedule == MANUAL:
        app.schedule_manual(alg)
        return Scheduled(pipeline, 0.0, None)
    if schedule not in AUTOSCHEDULERS:
        raise ValueError(f"unknown schedule {schedule!r}; known: {', '.join(SCHEDULES)}")
    hl.load_plugin(plugin_path(schedule))
    set_estimates(alg, input_extents, output_extents)
    params = {key: str(value) for key, value in AUTOSCHEDULER_PARAMS[schedule].items()}
    start = time.perf_counter()
    results = pipeline.apply_autoscheduler(target, hl.AutoschedulerParams(schedule, params))
    return Scheduled(pipeline, (time.perf_counter() - start) * 1e3, results.schedule_source)
