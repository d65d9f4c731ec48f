"""What every benchmark app provides: its algorithm, its manual schedule, its default input.

An `App` is static description; `App.define()` builds a fresh `Algorithm` (new Funcs, unscheduled)
each time, because a Halide Func can be scheduled only once and every schedule variant needs its
own copy of the pipeline.
"""

from dataclasses import dataclass, field
from typing import Callable

import halide as hl
import numpy as np


@dataclass
class Algorithm:
    """One unscheduled instance of an app's pipeline.

    `params` lists the runtime scalar parameters with the values the spec fixes, in the order
    the compiled pipeline takes them (after the input buffer). `stages` names the Funcs the
    manual schedule refers to (a list for pyramid levels).
    """

    input: hl.ImageParam
    output: hl.Func
    params: list[tuple[hl.Param, float]] = field(default_factory=list)
    stages: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class App:
    """A benchmark pipeline of ../shared/apps/<name>.md.

    Sizes are output sizes: the input is `(width + border) x (height + border)` (only blur has a
    border). `make_input(width, height)` returns the deterministic default input as a numpy array
    in `.npy` layout (`[H, W]` or `[H, W, C]`).
    """

    name: str
    default_width: int
    default_height: int
    input_dtype: type
    input_channels: int | None
    output_channels: int | None
    define: Callable[[], Algorithm]
    schedule_manual: Callable[[Algorithm], None]
    make_input: Callable[[int, int], np.ndarray]
    border: int = 0

    def output_size_of(self, image: np.ndarray) -> tuple[int, int]:
        """The output width and height this app computes from `image` (in `.npy` layout)."""
        return image.shape[1] - self.border, image.shape[0] - self.border
