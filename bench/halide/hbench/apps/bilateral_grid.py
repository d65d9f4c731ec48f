"""bilateral_grid: bilateral filter through a 3-D grid (../shared/apps/bilateral_grid.md)."""

import halide as hl
import numpy as np

from hbench import images
from hbench.app import Algorithm, App, Input, single_input
from hbench.exprs import left_sum

S_SIGMA = 8
R_SIGMA = 0.1

x, y, z, c = hl.Var("x"), hl.Var("y"), hl.Var("z"), hl.Var("c")


def blur5(sample) -> hl.Expr:
    """[1 4 6 4 1] blur: sample(-2) + 4*sample(-1) + 6*sample(0) + 4*sample(1) + sample(2)."""
    weights = (1, 4, 6, 4, 1)
    return left_sum([sample(d - 2) if w == 1 else w * sample(d - 2) for d, w in enumerate(weights)])


def define() -> Algorithm:
    image = hl.ImageParam(hl.Float(32), 2, "input")
    r_sigma = hl.Param(hl.Float(32), "r_sigma", R_SIGMA)
    s = S_SIGMA
    clamped = hl.BoundaryConditions.repeat_edge(image)
    histogram, blurz, blurx, blury = (hl.Func(n) for n in ("histogram", "blurz", "blurx", "blury"))
    interpolated, output = hl.Func("interpolated"), hl.Func("output")

    r = hl.RDom([hl.Range(0, s), hl.Range(0, s)], "r")
    val = hl.clamp(clamped[x * s + r.x - s // 2, y * s + r.y - s // 2], hl.f32(0), hl.f32(1))
    zi = hl.i32(val * (hl.f32(1) / r_sigma) + hl.f32(0.5))
    histogram[x, y, z, c] = hl.f32(0)
    histogram[x, y, zi, c] += hl.select(c == 0, val, hl.f32(1))

    blurz[x, y, z, c] = blur5(lambda d: histogram[x, y, z + d, c])
    blurx[x, y, z, c] = blur5(lambda d: blurz[x + d, y, z, c])
    blury[x, y, z, c] = blur5(lambda d: blurx[x, y + d, z, c])

    val = hl.clamp(image[x, y], hl.f32(0), hl.f32(1))
    zv = val * (hl.f32(1) / r_sigma)
    zi = hl.i32(zv)
    zf = zv - hl.f32(zi)
    xf = hl.f32(x % s) / hl.f32(s)
    yf = hl.f32(y % s) / hl.f32(s)
    xi, yi = x / s, y / s

    def grid(dx, dy, dz):
        return blury[xi + dx, yi + dy, zi + dz, c]

    def bilinear(dz):
        return hl.lerp(hl.lerp(grid(0, 0, dz), grid(1, 0, dz), xf),
                       hl.lerp(grid(0, 1, dz), grid(1, 1, dz), xf), yf)

    interpolated[x, y, c] = hl.lerp(bilinear(0), bilinear(1), zf)
    output[x, y] = interpolated[x, y, 0] / interpolated[x, y, 1]
    return Algorithm([image], output, params=[(r_sigma, R_SIGMA)],
                     stages={"histogram": histogram, "blurz": blurz, "blurx": blurx,
                             "blury": blury, "r": r})


def schedule_manual(alg: Algorithm) -> None:
    # The grid is small (W/8 x H/8 x 12 x 2): each stage of it is computed whole, in parallel
    # over its outermost dimension, vectorized over x with both channels unrolled. The
    # histogram is built one grid row at a time, right before blurz reads it. The slice runs
    # in parallel rows; it gathers 16 grid values per pixel, which 8-lane vectors do as fast
    # as 16-lane ones (measured), so it uses 8.
    st = alg.stages
    st["blurz"].compute_root().reorder(c, z, x, y).parallel(y).vectorize(x, 16).unroll(c)
    st["histogram"].compute_at(st["blurz"], y)
    st["histogram"].update().reorder(c, st["r"].x, st["r"].y, x, y).unroll(c)
    for stage in ("blurx", "blury"):
        st[stage].compute_root().reorder(c, x, y, z).parallel(z).vectorize(x, 16).unroll(c)
    alg.output.compute_root().parallel(y).vectorize(x, 8)


APP = App(
    name="bilateral_grid",
    default_width=2560,
    default_height=1536,
    inputs=(Input("input", np.float32),),
    output_channels=None,
    define=define,
    schedule_manual=schedule_manual,
    make_inputs=single_input(lambda width, height: images.synthetic(width, height, None)),
)
