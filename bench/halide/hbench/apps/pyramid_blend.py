"""pyramid_blend: Laplacian pyramid blending of two RGB images by a mask
(../shared/apps/pyramid_blend.md)."""

import halide as hl
import numpy as np

from hbench import images
from hbench.app import Algorithm, App, Input
from hbench.exprs import defined, left_sum

LEVELS = 4
STRIP = 32
VECTOR = 16

x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
yo, yi, xi = hl.Var("yo"), hl.Var("yi"), hl.Var("xi")


class Level:
    """Access to a Func at pyramid level `l` (W_l x H_l), clamped to that level's grid."""

    def __init__(self, width: hl.Expr, height: hl.Expr, l: int):
        self.width = (width + (1 << l) - 1) >> l
        self.height = (height + (1 << l) - 1) >> l

    def clamped(self, f: hl.Func):
        """clampl(f, l): a function of (x, y[, c]) reading `f` inside the level's grid."""
        def read(px, py, *rest):
            return f[[hl.clamp(px, 0, self.width - 1), hl.clamp(py, 0, self.height - 1)]
                     + list(rest)]
        return read


def pure_args(f: hl.Func) -> list:
    """(x, y) or (x, y, c), as `f` has 2 or 3 dimensions."""
    return [x, y, c][:f.dimensions()]


def down(f: hl.Func, fine: Level, name: str) -> tuple[hl.Func, hl.Func]:
    """The 5-tap [1 4 6 4 1]/16 downsample of `f` (at level `fine`) to the next level, in x
    then in y. Returns the result and its x pass."""
    s, rest = fine.clamped(f), pure_args(f)[2:]
    dx, g = hl.Func(name + "_dx"), hl.Func(name)
    dx[pure_args(f)] = left_sum([s(2 * x - 2, y, *rest), 4 * s(2 * x - 1, y, *rest),
                                 6 * s(2 * x, y, *rest), 4 * s(2 * x + 1, y, *rest),
                                 s(2 * x + 2, y, *rest)]) * hl.f32(1 / 16)
    g[pure_args(f)] = left_sum([dx[[x, 2 * y - 2] + rest], 4 * dx[[x, 2 * y - 1] + rest],
                                6 * dx[[x, 2 * y] + rest], 4 * dx[[x, 2 * y + 1] + rest],
                                dx[[x, 2 * y + 2] + rest]]) * hl.f32(1 / 16)
    return g, dx


def expand(f: hl.Func, coarse: Level, name: str) -> tuple[hl.Func, hl.Func]:
    """`f` (at level `coarse`) upsampled to the next finer level with the same kernel, in x
    then in y. Returns the result and its x pass."""
    s, rest = coarse.clamped(f), pure_args(f)[2:]
    ux, uy = hl.Func(name + "_ux"), hl.Func(name)
    ux[pure_args(f)] = hl.select(
        x % 2 == 0,
        (s(x / 2 - 1, y, *rest) + 6 * s(x / 2, y, *rest) + s(x / 2 + 1, y, *rest)) * hl.f32(0.125),
        (s(x / 2, y, *rest) + s(x / 2 + 1, y, *rest)) * hl.f32(0.5))
    uy[pure_args(f)] = hl.select(
        y % 2 == 0,
        (ux[[x, y / 2 - 1] + rest] + 6 * ux[[x, y / 2] + rest] + ux[[x, y / 2 + 1] + rest])
        * hl.f32(0.125),
        (ux[[x, y / 2] + rest] + ux[[x, y / 2 + 1] + rest]) * hl.f32(0.5))
    return uy, ux


def define() -> Algorithm:
    img1 = hl.ImageParam(hl.Float(32), 3, "img1")
    img2 = hl.ImageParam(hl.Float(32), 3, "img2")
    mask = hl.ImageParam(hl.Float(32), 2, "mask")
    level = [Level(img1.width(), img1.height(), l) for l in range(LEVELS)]

    gaussian = {"A": [defined("gA0", [x, y, c], img1[x, y, c])],
                "B": [defined("gB0", [x, y, c], img2[x, y, c])],
                "M": [defined("gM0", [x, y], mask[x, y])]}
    gaussian_x = {key: [None] for key in gaussian}
    for key, pyramid in gaussian.items():
        for l in range(1, LEVELS):
            g, dx = down(pyramid[l - 1], level[l - 1], f"g{key}{l}")
            pyramid.append(g)
            gaussian_x[key].append(dx)

    upsample_x: dict[str, list] = {"A": [], "B": [], "out": []}
    laplacian = {}
    for key in ("A", "B"):
        laplacian[key] = []
        for l in range(LEVELS - 1):
            up, ux = expand(gaussian[key][l + 1], level[l + 1], f"up_g{key}{l + 1}")
            upsample_x[key].append(ux)
            lap = hl.Func(f"l{key}{l}")
            lap[x, y, c] = gaussian[key][l][x, y, c] - up[x, y, c]
            laplacian[key].append(lap)
        laplacian[key].append(gaussian[key][LEVELS - 1])

    blend = []
    for l in range(LEVELS):
        b, weight = hl.Func(f"blend{l}"), gaussian["M"][l][x, y]
        b[x, y, c] = laplacian["A"][l][x, y, c] * weight + laplacian["B"][l][x, y, c] * (1 - weight)
        blend.append(b)

    out = [None] * LEVELS
    out[LEVELS - 1] = blend[LEVELS - 1]
    for l in range(LEVELS - 2, -1, -1):
        up, ux = expand(out[l + 1], level[l + 1], f"up_out{l + 1}")
        upsample_x["out"].insert(0, ux)
        out[l] = hl.Func(f"out{l}")
        out[l][x, y, c] = up[x, y, c] + blend[l][x, y, c]
    return Algorithm([img1, img2, mask], out[0],
                     stages={"gaussian": gaussian, "gaussian_x": gaussian_x,
                             "upsample_x": upsample_x, "out": out})


def strips(f: hl.Func) -> hl.Func:
    """Parallel STRIP-row strips, all channels of a row together, VECTOR-lane vectors."""
    if f.dimensions() == 3:
        f.reorder(x, c, y)
    return f.split(y, yo, yi, STRIP).parallel(yo).vectorize(x, VECTOR)


def paired(f: hl.Func) -> hl.Func:
    """An upsampling Func unrolled 2x in x on even bounds, so its x % 2 select folds away."""
    return f.align_bounds(x, 2).unroll(x, 2).vectorize(x, VECTOR)


def schedule_manual(alg: Algorithm) -> None:
    # The spec's hint. Gaussian levels 1-3 are computed whole in parallel strips, each strip
    # computing its own horizontal pass. out2 and out1 are computed whole in strips, with the
    # horizontal upsamples that feed them (of out3/out2 and of the Laplacians' gA/gB levels)
    # line-buffered per strip and everything else inlined. Level 0 is fused into the output
    # strips: the horizontal upsamples of gA1, gB1 and out1 are computed per strip, the
    # Laplacians, blend and vertical upsamples inlined. Upsampling Funcs are unrolled 2x in x
    # and their consumers 2x in y (on bounds aligned to 2, the output's min fixed at 0), so
    # the parity selects fold away.
    st, output = alg.stages, alg.output
    for key in ("A", "B", "M"):
        for l in range(1, LEVELS):
            strips(st["gaussian"][key][l].compute_root())
            st["gaussian_x"][key][l].compute_at(st["gaussian"][key][l], yo) \
                .vectorize(x, VECTOR)
    for l in (1, 2):
        consumer = st["out"][l]
        strips(consumer.compute_root().align_bounds(y, 2)).unroll(yi, 2)
        for key in ("A", "B", "out"):
            paired(st["upsample_x"][key][l].store_at(consumer, yo).compute_at(consumer, yi))
    strips(output).unroll(yi, 2)
    for d in range(3):
        output.output_buffer().dim(d).set_min(0)
    for key in ("A", "B", "out"):
        paired(st["upsample_x"][key][0].compute_at(output, yo))


def make_inputs(width: int, height: int) -> dict[str, np.ndarray]:
    """Two synthetic RGB images (different seeds) and a smooth mask in [0, 1]: a soft
    diagonal edge with a gentle wave, from 1 (img1) at the top left to 0 at the bottom right."""
    xs = np.linspace(0.0, 1.0, width, dtype=np.float64)[None, :]
    ys = np.linspace(0.0, 1.0, height, dtype=np.float64)[:, None]
    edge = (xs + ys - 1.0 + 0.1 * np.sin(6 * np.pi * xs)) / 0.3
    mask = (0.5 - 0.5 * np.tanh(edge)).astype(np.float32)
    return {"img1": images.synthetic(width, height, 3),
            "img2": images.synthetic(width, height, 3, seed=images.SEED + 2),
            "mask": mask}


APP = App(
    name="pyramid_blend",
    default_width=2048,
    default_height=2048,
    inputs=(Input("img1", np.float32, 3), Input("img2", np.float32, 3),
            Input("mask", np.float32)),
    output_channels=3,
    define=define,
    schedule_manual=schedule_manual,
    make_inputs=make_inputs,
)
