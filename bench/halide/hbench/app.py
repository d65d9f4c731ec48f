"""What every benchmark app provides: its algorithm, its manual schedule, its default inputs.

An `App` is static description; `App.define()` builds a fresh `Algorithm` (new Funcs, unscheduled)
each time, because a Halide Func can be scheduled only once and every schedule variant needs its
own copy of the pipeline. An app takes one or more named input images, all of the same width and
height; `Extents` relates that size to the output's.
"""

from dataclasses import dataclass, field
from typing import Callable

import halide as hl
import numpy as np


@dataclass
class Algorithm:
    """One unscheduled instance of an app's pipeline.

    `inputs` are the input images in the order of `App.inputs`; `params` lists the runtime
    scalar parameters with the values the spec fixes. The compiled pipeline takes the inputs,
    then the params, in these orders. `stages` names the Funcs the manual schedule refers to (a
    list for pyramid levels).
    """

    inputs: list[hl.ImageParam]
    output: hl.Func
    params: list[tuple[hl.Param, float]] = field(default_factory=list)
    stages: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Input:
    """One input image as the spec names it: `[H, W]` or `[H, W, channels]` of `dtype`."""

    name: str
    dtype: type
    channels: int | None = None

    def check(self, path: str, image: np.ndarray) -> None:
        """Raises ValueError, naming the file and this input, unless `image` is of this kind."""
        if image.dtype != np.dtype(self.dtype):
            raise ValueError(f"{path}: input {self.name!r} has dtype {image.dtype},"
                             f" the app takes {np.dtype(self.dtype)}")
        if image.ndim != (3 if self.channels else 2) or (
                self.channels and image.shape[2] != self.channels):
            want = f"[H, W, {self.channels}]" if self.channels else "[H, W]"
            raise ValueError(f"{path}: input {self.name!r} has shape {list(image.shape)},"
                             f" the app takes {want}")


@dataclass(frozen=True)
class Extents:
    """The spec's rule between input and output sizes.

    The inputs are `border` larger than the output (blur reads 2 columns and rows past it;
    camera_pipe's output sits 16 columns and 12 rows inside its raw mosaic, which is 32 x 24
    larger). Valid output sizes are `step * k + offset` in both dimensions; when
    `rounds_down`, an input of any size gives the largest valid output that fits (camera_pipe
    crops to multiples of 32), otherwise an input of another size is an error (multigrid's
    grids need W - 1 and H - 1 divisible by 8).
    """

    border: tuple[int, int] = (0, 0)
    step: int = 1
    offset: int = 0
    rounds_down: bool = False

    def fit(self, extent: int) -> int:
        """The largest valid output extent not above `extent`."""
        return (extent - self.offset) // self.step * self.step + self.offset

    def fit_size(self, width: int, height: int) -> tuple[int, int]:
        return self.fit(width), self.fit(height)

    def output_of(self, width: int, height: int) -> tuple[int, int]:
        """The output size for inputs of `width` x `height`; ValueError when there is none."""
        wanted = (width - self.border[0], height - self.border[1])
        size = self.fit_size(*wanted)
        if min(size) < self.step + self.offset or (not self.rounds_down and size != wanted):
            rule = f"{self.step}k + {self.offset}" if self.offset else f"a multiple of {self.step}"
            output = f"the inputs' minus {self.border}" if any(self.border) else "the inputs'"
            raise ValueError(f"inputs of {width} x {height} give no valid output: its width and"
                             f" height ({output}) must be {rule},"
                             f" at least {self.step + self.offset}")
        return size

    def input_of(self, width: int, height: int) -> tuple[int, int]:
        """The input size for an output of `width` x `height`."""
        return width + self.border[0], height + self.border[1]


@dataclass(frozen=True)
class App:
    """A benchmark pipeline of ../shared/apps/<name>.md.

    Sizes are output sizes. `make_inputs(width, height)` returns the deterministic default
    inputs for that output size, by input name, as numpy arrays in `.npy` layout (`[H, W]` or
    `[H, W, C]`).
    """

    name: str
    default_width: int
    default_height: int
    inputs: tuple[Input, ...]
    output_channels: int | None
    define: Callable[[], Algorithm]
    schedule_manual: Callable[[Algorithm], None]
    make_inputs: Callable[[int, int], dict[str, np.ndarray]]
    extents: Extents = Extents()

    @property
    def input_names(self) -> list[str]:
        return [spec.name for spec in self.inputs]

    def output_size_of(self, images: dict[str, np.ndarray]) -> tuple[int, int]:
        """The output width and height this app computes from `images` (by input name)."""
        sizes = {name: (image.shape[1], image.shape[0]) for name, image in images.items()}
        if len(set(sizes.values())) != 1:
            raise ValueError(f"{self.name}: inputs of different sizes {sizes}")
        try:
            return self.extents.output_of(*next(iter(sizes.values())))
        except ValueError as why:
            raise ValueError(f"{self.name}: {why}") from None


def single_input(make_input: Callable[[int, int], np.ndarray]) -> Callable:
    """`make_inputs` for an app whose one input is named `input`, as most specs name it."""
    return lambda width, height: {"input": make_input(width, height)}
