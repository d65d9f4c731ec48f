"""harris: Harris corner response, float32 grayscale (../shared/apps/harris.md)."""

import halide as hl
import numpy as np

from hbench import images
from hbench.app import Algorithm, App, Input, single_input
from hbench.exprs import left_sum

x, y, yi = hl.Var("x"), hl.Var("y"), hl.Var("yi")


def stencil(source, taps: list[tuple[int, int, float]]) -> hl.Expr:
    """Sum of source(x+dx, y+dy) * f32(weight) over `taps` = [(dx, dy, weight)], in order."""
    return left_sum([source[x + dx, y + dy] * hl.f32(weight) for dx, dy, weight in taps])


def box3x3(source: hl.Func) -> hl.Expr:
    """Sum of source over the 3x3 neighbourhood, dy outer and dx inner."""
    return left_sum([source[x + dx, y + dy] for dy in (-1, 0, 1) for dx in (-1, 0, 1)])


def define() -> Algorithm:
    image = hl.ImageParam(hl.Float(32), 2, "input")
    g = hl.BoundaryConditions.repeat_edge(image)
    f = {name: hl.Func(name) for name in
         ("Ix", "Iy", "Ixx", "Iyy", "Ixy", "Sxx", "Syy", "Sxy", "det", "trace", "output")}
    f["Iy"][x, y] = stencil(g, [(-1, -1, -1 / 12), (-1, 1, 1 / 12), (0, -1, -2 / 12),
                                (0, 1, 2 / 12), (1, -1, -1 / 12), (1, 1, 1 / 12)])
    f["Ix"][x, y] = stencil(g, [(-1, -1, -1 / 12), (1, -1, 1 / 12), (-1, 0, -2 / 12),
                                (1, 0, 2 / 12), (-1, 1, -1 / 12), (1, 1, 1 / 12)])
    f["Ixx"][x, y] = f["Ix"][x, y] * f["Ix"][x, y]
    f["Iyy"][x, y] = f["Iy"][x, y] * f["Iy"][x, y]
    f["Ixy"][x, y] = f["Ix"][x, y] * f["Iy"][x, y]
    f["Sxx"][x, y] = box3x3(f["Ixx"])
    f["Syy"][x, y] = box3x3(f["Iyy"])
    f["Sxy"][x, y] = box3x3(f["Ixy"])
    f["det"][x, y] = f["Sxx"][x, y] * f["Syy"][x, y] - f["Sxy"][x, y] * f["Sxy"][x, y]
    f["trace"][x, y] = f["Sxx"][x, y] + f["Syy"][x, y]
    f["output"][x, y] = f["det"][x, y] - hl.f32(0.04) * f["trace"][x, y] * f["trace"][x, y]
    return Algorithm([image], f["output"], stages=f)


def schedule_manual(alg: Algorithm) -> None:
    # Strips of 32 rows in parallel, two AVX-512 vectors wide (measured better than one). Ix
    # and Iy slide down the strip one row at a time (each gradient row computed once, kept in
    # a 3-row window) in one fused loop that reads the input once for both; everything else
    # is inlined into the output row.
    ix, iy = alg.stages["Ix"], alg.stages["Iy"]
    alg.output.split(y, y, yi, 32).parallel(y).vectorize(x, 32)
    for gradient in (ix, iy):
        gradient.store_at(alg.output, y).compute_at(alg.output, yi).vectorize(x, 32)
    ix.compute_with(iy, x)


APP = App(
    name="harris",
    default_width=6400,
    default_height=6400,
    inputs=(Input("input", np.float32),),
    output_channels=None,
    define=define,
    schedule_manual=schedule_manual,
    make_inputs=single_input(lambda width, height: images.synthetic(width, height, None)),
)
