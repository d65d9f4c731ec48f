"""unsharp: unsharp mask with a 7-tap Gaussian, float32 RGB (../shared/apps/unsharp.md)."""

import halide as hl
import numpy as np

from hbench import images
from hbench.app import Algorithm, App, Input, single_input
from hbench.exprs import left_sum

SIGMA, RADIUS, THRESH = 1.5, 3, 0.02

x, y, c, yo, yi = hl.Var("x"), hl.Var("y"), hl.Var("c"), hl.Var("yo"), hl.Var("yi")


def kernel() -> list[float]:
    """K[-3..3]: normalized Gaussian weights computed in f64 (rounded to f32 where used)."""
    taps = np.arange(-RADIUS, RADIUS + 1, dtype=np.float64)
    weights = np.exp(-(taps**2) / (2 * SIGMA**2))
    return list(weights / weights.sum())


def weighted_sum(samples) -> hl.Expr:
    """K[-3]*s(-3) + ... + K[3]*s(3), summed left to right."""
    return left_sum([hl.f32(k) * samples(i) for k, i in zip(kernel(), range(-RADIUS, RADIUS + 1))])


def define() -> Algorithm:
    image = hl.ImageParam(hl.Float(32), 3, "input")
    clamped = hl.BoundaryConditions.repeat_edge(image)
    blur_y, blur_x = hl.Func("blur_y"), hl.Func("blur_x")
    sharpen, output = hl.Func("sharpen"), hl.Func("output")
    blur_y[x, y, c] = weighted_sum(lambda i: clamped[x, y + i, c])
    blur_x[x, y, c] = weighted_sum(lambda i: blur_y[x + i, y, c])
    sharpen[x, y, c] = 2 * image[x, y, c] - blur_x[x, y, c]
    output[x, y, c] = hl.select(
        hl.abs(image[x, y, c] - blur_x[x, y, c]) > hl.f32(THRESH), sharpen[x, y, c], image[x, y, c]
    )
    return Algorithm([image], output, stages={"blur_y": blur_y})


def schedule_manual(alg: Algorithm) -> None:
    # Strips of 8 rows per channel in parallel (measured best of 4..128 rows). blur_x reads
    # blur_y only on its own row, so blur_y is computed one row (W + 6 values) at a time,
    # right before the output row that reads it, and stays in L1; blur_x and sharpen are
    # inlined into the output.
    alg.output.split(y, yo, yi, 8).reorder(x, yi, c, yo).parallel(yo).vectorize(x, 16)
    alg.stages["blur_y"].compute_at(alg.output, yi).vectorize(x, 16)


APP = App(
    name="unsharp",
    default_width=2048,
    default_height=2048,
    inputs=(Input("input", np.float32, 3),),
    output_channels=3,
    define=define,
    schedule_manual=schedule_manual,
    make_inputs=single_input(lambda width, height: images.synthetic(width, height, 3)),
)
