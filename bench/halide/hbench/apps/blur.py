"""blur: separable 3x3 box blur in uint16 (../shared/apps/blur.md)."""

import halide as hl
import numpy as np

from hbench import images
from hbench.app import Algorithm, App, Extents, Input, single_input

x, y, yi = hl.Var("x"), hl.Var("y"), hl.Var("yi")


def define() -> Algorithm:
    image = hl.ImageParam(hl.UInt(16), 2, "input")
    blur_x, blur_y = hl.Func("blur_x"), hl.Func("blur_y")
    blur_x[x, y] = (image[x, y] + image[x + 1, y] + image[x + 2, y]) / 3
    blur_y[x, y] = (blur_x[x, y] + blur_x[x, y + 1] + blur_x[x, y + 2]) / 3
    return Algorithm([image], blur_y, stages={"blur_x": blur_x})


def schedule_manual(alg: Algorithm) -> None:
    # Strips of 32 rows in parallel; inside a strip blur_x slides down one row at a time, so
    # each input row is read once and blur_x lives in a 3-row circular buffer.
    blur_x = alg.stages["blur_x"]
    alg.output.split(y, y, yi, 32).parallel(y).vectorize(x, 32)
    blur_x.store_at(alg.output, y).compute_at(alg.output, yi).vectorize(x, 32)


def make_input(width: int, height: int) -> np.ndarray:
    """12-bit values, so the uint16 sums cannot overflow."""
    return images.quantize(images.synthetic(width + 2, height + 2, None), np.uint16, 4095)


APP = App(
    name="blur",
    default_width=6400,
    default_height=4800,
    inputs=(Input("input", np.uint16),),
    output_channels=None,
    define=define,
    schedule_manual=schedule_manual,
    make_inputs=single_input(make_input),
    extents=Extents(border=(2, 2)),
)
