"""local_laplacian: local Laplacian filter on uint16 RGB (../shared/apps/local_laplacian.md)."""

import halide as hl
import numpy as np

from hbench import images
from hbench.app import Algorithm, App, Input, single_input

J = 8
LEVELS, ALPHA, BETA = 8, 1.0, 1.0

x, y, c, k = hl.Var("x"), hl.Var("y"), hl.Var("c"), hl.Var("k")
yo, yi = hl.Var("yo"), hl.Var("yi")


def downsample(f: hl.Func, name: str) -> tuple[hl.Func, hl.Func]:
    """[1 3 3 1]/8 in x then in y, halving the resolution; carries `k` if `f` has it.

    Returns the result and its x pass (which schedules may place on their own)."""
    extra = [k] if f.dimensions() == 3 else []
    dx, dy = hl.Func(name + "_dx"), hl.Func(name)
    dx[[x, y] + extra] = (f[[2 * x - 1, y] + extra]
                          + 3 * (f[[2 * x, y] + extra] + f[[2 * x + 1, y] + extra])
                          + f[[2 * x + 2, y] + extra]) / 8
    dy[[x, y] + extra] = (dx[[x, 2 * y - 1] + extra]
                          + 3 * (dx[[x, 2 * y] + extra] + dx[[x, 2 * y + 1] + extra])
                          + dx[[x, 2 * y + 2] + extra]) / 8
    return dy, dx


def upsample(f: hl.Func, name: str) -> hl.Func:
    """Linear upsampling by 2 in x then in y; carries `k` if `f` has it."""
    extra = [k] if f.dimensions() == 3 else []
    wx = hl.f32((x % 2) * 2 + 1) / 4
    wy = hl.f32((y % 2) * 2 + 1) / 4
    ux, uy = hl.Func(name + "_ux"), hl.Func(name)
    ux[[x, y] + extra] = hl.lerp(f[[(x + 1) / 2, y] + extra], f[[(x - 1) / 2, y] + extra], wx)
    uy[[x, y] + extra] = hl.lerp(ux[[x, (y + 1) / 2] + extra], ux[[x, (y - 1) / 2] + extra], wy)
    return uy


def define() -> Algorithm:
    image = hl.ImageParam(hl.UInt(16), 3, "input")
    levels = hl.Param(hl.Int(32), "levels", LEVELS)
    alpha = hl.Param(hl.Float(32), "alpha", ALPHA)
    beta = hl.Param(hl.Float(32), "beta", BETA)

    a = alpha / hl.f32(levels - 1)
    remap = hl.Func("remap")
    fx = hl.f32(x) / 256
    remap[x] = a * fx * hl.exp(-fx * fx / 2)

    floating = hl.Func("floating")
    floating[x, y, c] = hl.f32(image[x, y, c]) / 65535
    clamped = hl.BoundaryConditions.repeat_edge(
        floating, [hl.Range(0, image.width()), hl.Range(0, image.height())])
    gray = hl.Func("gray")
    gray[x, y] = (hl.f32(0.299) * clamped[x, y, 0] + hl.f32(0.587) * clamped[x, y, 1]
                  + hl.f32(0.114) * clamped[x, y, 2])

    g_pyramid, g_pyramid_x = [hl.Func("gPyramid0")], [None]
    level = hl.f32(k) * (1 / hl.f32(levels - 1))
    idx = hl.clamp(hl.i32(gray[x, y] * hl.f32(levels - 1) * 256), 0, (levels - 1) * 256)
    g_pyramid[0][x, y, k] = beta * (gray[x, y] - level) + level + remap[idx - 256 * k]
    for j in range(1, J):
        down, down_x = downsample(g_pyramid[j - 1], f"gPyramid{j}")
        g_pyramid.append(down)
        g_pyramid_x.append(down_x)

    l_pyramid = [None] * J
    l_pyramid[J - 1] = g_pyramid[J - 1]
    for j in range(J - 2, -1, -1):
        l_pyramid[j] = hl.Func(f"lPyramid{j}")
        up = upsample(g_pyramid[j + 1], f"lPyramid{j}_up")
        l_pyramid[j][x, y, k] = g_pyramid[j][x, y, k] - up[x, y, k]

    in_g_pyramid = [gray]
    for j in range(1, J):
        in_g_pyramid.append(downsample(in_g_pyramid[j - 1], f"inGPyramid{j}")[0])

    out_l_pyramid = []
    for j in range(J):
        out_l_pyramid.append(hl.Func(f"outLPyramid{j}"))
        lv = in_g_pyramid[j][x, y] * hl.f32(levels - 1)
        li = hl.clamp(hl.i32(lv), 0, levels - 2)
        lf = lv - hl.f32(li)
        out_l_pyramid[j][x, y] = (1 - lf) * l_pyramid[j][x, y, li] + lf * l_pyramid[j][x, y, li + 1]

    out_g_pyramid = [None] * J
    out_g_pyramid[J - 1] = out_l_pyramid[J - 1]
    for j in range(J - 2, -1, -1):
        out_g_pyramid[j] = hl.Func(f"outGPyramid{j}")
        up = upsample(out_g_pyramid[j + 1], f"outGPyramid{j}_up")
        out_g_pyramid[j][x, y] = up[x, y] + out_l_pyramid[j][x, y]

    color, output = hl.Func("color"), hl.Func("output")
    color[x, y, c] = (out_g_pyramid[0][x, y] * (clamped[x, y, c] + hl.f32(0.01))
                      / (gray[x, y] + hl.f32(0.01)))
    output[x, y, c] = hl.u16(hl.clamp(color[x, y, c], hl.f32(0), hl.f32(1)) * 65535)
    return Algorithm([image], output, params=[(levels, LEVELS), (alpha, ALPHA), (beta, BETA)],
                     stages={"remap": remap, "gray": gray, "gPyramid": g_pyramid,
                             "gPyramid_x": g_pyramid_x,
                             "inGPyramid": in_g_pyramid, "outGPyramid": out_g_pyramid})


def schedule_manual(alg: Algorithm) -> None:
    # Fine levels (j < 5): the input and remapped Gaussian pyramids are computed whole, in
    # parallel rows, vectorized, the k planes of gPyramid interleaved per row so one row of
    # all k is contiguous. gPyramid1 is built in strips of 16 rows from rows of gPyramid0 and
    # of its own x pass that slide down the strip, so each gPyramid0 value (a LUT gather) is
    # computed once for it instead of 16 times inlined, without a 200 MB gPyramid0 buffer;
    # the collapse still reads gPyramid0 inlined (2 values per pixel, cheaper than a buffer).
    # This halves the hint schedule's time here (measured). The collapse (outGPyramid 1..4)
    # is fused into 64-row strips of the output, each level sliding down the strip in a small
    # circular buffer. Coarse levels (j >= 5) are tiny and computed whole.
    st = alg.stages
    output = alg.output
    g1, g1_x = st["gPyramid"][1], st["gPyramid_x"][1]
    st["remap"].compute_root()
    output.reorder(c, x, y).split(y, yo, y, 64).parallel(yo).vectorize(x, 16)
    st["gray"].compute_root().parallel(y, 32).vectorize(x, 16)
    g1.compute_root().reorder_storage(x, k, y).split(y, yo, yi, 16).reorder(x, k, yi, yo) \
        .parallel(yo).vectorize(x, 16)
    for producer in (st["gPyramid"][0].in_(g1_x), g1_x):
        producer.store_at(g1, yo).compute_at(g1, yi).vectorize(x, 16)
    for j in range(1, 5):
        st["inGPyramid"][j].compute_root().parallel(y, 32).vectorize(x, 16)
        if j > 1:
            st["gPyramid"][j].compute_root().reorder_storage(x, k, y).reorder(k, y) \
                .parallel(y, 8).vectorize(x, 16)
        st["outGPyramid"][j].store_at(output, yo).compute_at(output, y).fold_storage(y, 4) \
            .vectorize(x, 16, hl.TailStrategy.RoundUp)
    st["outGPyramid"][0].compute_at(output, y).vectorize(x, 16)
    for j in range(5, J):
        st["inGPyramid"][j].compute_root()
        st["gPyramid"][j].compute_root().parallel(k)
        st["outGPyramid"][j].compute_root()


APP = App(
    name="local_laplacian",
    default_width=2560,
    default_height=1536,
    inputs=(Input("input", np.uint16, 3),),
    output_channels=3,
    define=define,
    schedule_manual=schedule_manual,
    make_inputs=single_input(lambda width, height: images.quantize(
        images.synthetic(width, height, 3), np.uint16, 65535)),
)
