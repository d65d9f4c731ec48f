"""camera_pipe: raw GRBG Bayer mosaic to uint8 RGB (../shared/apps/camera_pipe.md)."""

import halide as hl
import numpy as np

from hbench import images
from hbench.app import Algorithm, App, Extents, Input
from hbench.exprs import defined

GAMMA, CONTRAST, SHARPEN_STRENGTH = 2.0, 50.0, 1.0
BLACK_LEVEL, WHITE_LEVEL = 25, 1023

# The spec's colour matrix for 3700 K in Q8.8, one row per output channel: [r, g, b, offset].
MATRIX = ((548, -103, 7, -10220),
          (-96, 373, 61, -7254),
          (-30, -260, 882, -5562))

# The output sits this far inside the raw mosaic, which is twice as much larger than it.
SHIFT_X, SHIFT_Y = 16, 12

x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
xi, yi, yo, yii = hl.Var("xi"), hl.Var("yi"), hl.Var("yo"), hl.Var("yii")


def avg(a: hl.Expr, b: hl.Expr) -> hl.Expr:
    """The int16 mean of two int16 values, rounding up."""
    return hl.i16((hl.i32(a) + hl.i32(b) + 1) / 2)


def avg8(a: hl.Expr, b: hl.Expr) -> hl.Expr:
    """The uint8 mean of two uint8 values, rounding up."""
    return hl.u8((hl.u16(a) + hl.u16(b) + 1) / 2)


def u8_sat(value: hl.Expr) -> hl.Expr:
    return hl.u8(hl.clamp(value, 0, 255))


def demosaic(plane: dict[str, hl.Func]) -> tuple[hl.Func, dict[str, hl.Func]]:
    """Step 3: the four half-resolution planes to full-resolution RGB; also returns the
    intermediate Funcs by name."""
    g_gr, r_r, b_b, g_gb = (plane[n] for n in ("g_gr", "r_r", "b_b", "g_gb"))
    f: dict[str, hl.Func] = {}
    f["g_r"] = defined("g_r", [x, y], hl.select(
        hl.absd(g_gr[x + 1, y], g_gr[x, y]) < hl.absd(g_gb[x, y - 1], g_gb[x, y]),
        avg(g_gr[x + 1, y], g_gr[x, y]), avg(g_gb[x, y - 1], g_gb[x, y])))
    f["g_b"] = defined("g_b", [x, y], hl.select(
        hl.absd(g_gb[x - 1, y], g_gb[x, y]) < hl.absd(g_gr[x, y + 1], g_gr[x, y]),
        avg(g_gb[x - 1, y], g_gb[x, y]), avg(g_gr[x, y + 1], g_gr[x, y])))
    g_r, g_b = f["g_r"], f["g_b"]
    f["r_gr"] = defined("r_gr", [x, y], (g_gr[x, y] - avg(g_r[x, y], g_r[x - 1, y]))
                        + avg(r_r[x - 1, y], r_r[x, y]))
    f["b_gr"] = defined("b_gr", [x, y], (g_gr[x, y] - avg(g_b[x, y], g_b[x, y - 1]))
                        + avg(b_b[x, y], b_b[x, y - 1]))
    f["r_gb"] = defined("r_gb", [x, y], (g_gb[x, y] - avg(g_r[x, y], g_r[x, y + 1]))
                        + avg(r_r[x, y], r_r[x, y + 1]))
    f["b_gb"] = defined("b_gb", [x, y], (g_gb[x, y] - avg(g_b[x, y], g_b[x + 1, y]))
                        + avg(b_b[x, y], b_b[x + 1, y]))
    rp = (g_b[x, y] - avg(g_r[x, y], g_r[x - 1, y + 1])) + avg(r_r[x, y], r_r[x - 1, y + 1])
    rn = (g_b[x, y] - avg(g_r[x - 1, y], g_r[x, y + 1])) + avg(r_r[x - 1, y], r_r[x, y + 1])
    f["r_b"] = defined("r_b", [x, y], hl.select(
        hl.absd(r_r[x, y], r_r[x - 1, y + 1]) < hl.absd(r_r[x - 1, y], r_r[x, y + 1]), rp, rn))
    bp = (g_r[x, y] - avg(g_b[x, y], g_b[x + 1, y - 1])) + avg(b_b[x, y], b_b[x + 1, y - 1])
    bn = (g_r[x, y] - avg(g_b[x + 1, y], g_b[x, y - 1])) + avg(b_b[x + 1, y], b_b[x, y - 1])
    f["b_r"] = defined("b_r", [x, y], hl.select(
        hl.absd(b_b[x, y], b_b[x + 1, y - 1]) < hl.absd(b_b[x + 1, y], b_b[x, y - 1]), bp, bn))

    def interleave_x(a: hl.Func, b: hl.Func, name: str) -> hl.Func:
        return defined(name, [x, y], hl.select(x % 2 == 0, a[x / 2, y], b[x / 2, y]))

    def interleave_y(a: hl.Func, b: hl.Func, name: str) -> hl.Func:
        return defined(name, [x, y], hl.select(y % 2 == 0, a[x, y / 2], b[x, y / 2]))

    red = interleave_y(interleave_x(f["r_gr"], r_r, "r_top"),
                       interleave_x(f["r_b"], f["r_gb"], "r_bottom"), "r")
    green = interleave_y(interleave_x(g_gr, g_r, "g_top"),
                         interleave_x(g_b, g_gb, "g_bottom"), "g")
    blue = interleave_y(interleave_x(f["b_gr"], f["b_r"], "b_top"),
                        interleave_x(b_b, f["b_gb"], "b_bottom"), "b")
    demosaiced = defined("demosaiced", [x, y, c],
                         hl.mux(c, [red[x, y], green[x, y], blue[x, y]]))
    return demosaiced, f


def tone_curve(gamma: hl.Param, contrast: hl.Param, black_level: hl.Param,
               white_level: hl.Param) -> hl.Func:
    """Step 5's 1024-entry LUT, in float64 as the spec computes it."""
    i = hl.Var("i")
    inv_range = hl.f64(1.0) / hl.f64(white_level - black_level)
    cb = hl.f64(2.0) - hl.pow(hl.f64(2.0), hl.f64(contrast) / 100.0)
    ca = hl.f64(2.0) - 2.0 * cb
    xf = hl.clamp(hl.f64(i - black_level) * inv_range, hl.f64(0.0), hl.f64(1.0))
    g = hl.pow(xf, hl.f64(1.0) / hl.f64(gamma))
    z = hl.select(g > 0.5, 1.0 - (ca * (1.0 - g) * (1.0 - g) + cb * (1.0 - g)),
                  ca * g * g + cb * g)
    level = hl.u8(hl.clamp(z * 255.0 + 0.5, hl.f64(0.0), hl.f64(255.0)))
    return defined("curve", [i], hl.select(i <= black_level, hl.u8(0),
                                            hl.select(i > white_level, hl.u8(255), level)))


def define() -> Algorithm:
    raw = hl.ImageParam(hl.UInt(16), 2, "input")
    gamma = hl.Param(hl.Float(32), "gamma", GAMMA)
    contrast = hl.Param(hl.Float(32), "contrast", CONTRAST)
    sharpen_strength = hl.Param(hl.Float(32), "sharpen_strength", SHARPEN_STRENGTH)
    black_level = hl.Param(hl.Int(32), "black_level", BLACK_LEVEL)
    white_level = hl.Param(hl.Int(32), "white_level", WHITE_LEVEL)

    # The clamp never changes a value (every read is inside the mosaic); it keeps schedules
    # that compute past the needed region legal.
    clamped = hl.BoundaryConditions.repeat_edge(raw)
    shifted = defined("shifted", [x, y], hl.i16(clamped[x + SHIFT_X, y + SHIFT_Y]))
    denoised = defined("denoised", [x, y], hl.clamp(
        shifted[x, y], 0, hl.max(hl.max(shifted[x - 2, y], shifted[x + 2, y]),
                                 hl.max(shifted[x, y - 2], shifted[x, y + 2]))))
    deinterleaved = defined("deinterleaved", [x, y, c], hl.mux(
        c, [denoised[2 * x, 2 * y], denoised[2 * x + 1, 2 * y],
            denoised[2 * x, 2 * y + 1], denoised[2 * x + 1, 2 * y + 1]]))
    plane = {name: defined(name, [x, y], deinterleaved[x, y, channel])
             for channel, name in enumerate(("g_gr", "r_r", "b_b", "g_gb"))}
    demosaiced, intermediate = demosaic(plane)

    rgb = [hl.i32(demosaiced[x, y, channel]) for channel in range(3)]
    rows = [hl.i16((m[3] + m[0] * rgb[0] + m[1] * rgb[1] + m[2] * rgb[2]) / 256)
            for m in MATRIX]
    corrected = defined("corrected", [x, y, c], hl.mux(c, rows))

    curve = tone_curve(gamma, contrast, black_level, white_level)
    curved = defined("curved", [x, y, c], curve[hl.clamp(hl.i32(corrected[x, y, c]), 0, 1023)])

    s32 = u8_sat(sharpen_strength * hl.f32(32.0))
    unsharp_y = defined("unsharp_y", [x, y, c], avg8(
        avg8(curved[x, y - 1, c], curved[x, y + 1, c]), curved[x, y, c]))
    unsharp = defined("unsharp", [x, y, c], avg8(
        avg8(unsharp_y[x - 1, y, c], unsharp_y[x + 1, y, c]), unsharp_y[x, y, c]))
    mask = defined("mask", [x, y, c], hl.i16(curved[x, y, c]) - hl.i16(unsharp[x, y, c]))
    output = defined("output", [x, y, c], u8_sat(
        hl.i16(curved[x, y, c]) + (mask[x, y, c] * hl.i16(s32)) / 32))
    return Algorithm([raw], output,
                     params=[(gamma, GAMMA), (contrast, CONTRAST),
                             (sharpen_strength, SHARPEN_STRENGTH), (black_level, BLACK_LEVEL),
                             (white_level, WHITE_LEVEL)],
                     stages={"shifted": shifted, "denoised": denoised,
                             "deinterleaved": deinterleaved, "demosaiced": demosaiced,
                             "curve": curve, "curved": curved, "unsharp_y": unsharp_y,
                             **intermediate})


def schedule_manual(alg: Algorithm) -> None:
    # The spec's hint, which is Halide's CPU schedule of the app: the output in 32-row strips
    # in parallel, 2 rows (one row of Bayer quads) per step, 64-lane vectors (twice the u16
    # vector of AVX-512) with c unrolled. The early stages are line buffers per strip, computed
    # per 2-row step in folded storage; g_r and g_b share one loop (compute_with).
    # demosaiced is computed per vector of curved, with the colour matrix inlined into
    # curved; the LUT is computed once.
    st, output = alg.stages, alg.output
    vec = 64
    strip = 32
    output.compute_root().bound(c, 0, 3).reorder(c, x, y) \
        .split(y, yi, yii, 2, hl.TailStrategy.RoundUp).split(yi, yo, yi, strip // 2) \
        .vectorize(x, vec, hl.TailStrategy.RoundUp).unroll(c).parallel(yo)
    st["shifted"].store_at(output, yo).compute_at(output, yi).fold_storage(y, 16) \
        .vectorize(x, vec, hl.TailStrategy.RoundUp)
    st["denoised"].store_at(output, yo).compute_at(output, yi).fold_storage(y, 16) \
        .tile(x, y, x, y, xi, yii, vec, 2).vectorize(xi).unroll(yii)
    st["deinterleaved"].store_at(output, yo).compute_at(output, yi).fold_storage(y, 8) \
        .reorder(c, x, y).vectorize(x, vec, hl.TailStrategy.RoundUp).unroll(c)
    for name in ("g_r", "g_b"):
        st[name].store_at(output, yo).compute_at(output, yi).fold_storage(y, 4) \
            .vectorize(x, vec, hl.TailStrategy.RoundUp)
    st["g_b"].compute_with(st["g_r"], x)
    st["curved"].store_at(output, yo).compute_at(output, yi).reorder(c, x, y) \
        .tile(x, y, x, y, xi, yii, vec, 2, hl.TailStrategy.RoundUp).vectorize(xi).unroll(yii) \
        .unroll(c)
    st["demosaiced"].compute_at(st["curved"], x).reorder(c, x, y).vectorize(x).unroll(y) \
        .unroll(c)
    st["unsharp_y"].store_at(output, yo).compute_at(output, yi).reorder(x, c, y).unroll(c) \
        .vectorize(x, vec, hl.TailStrategy.RoundUp)
    st["curve"].compute_root()


def make_inputs(width: int, height: int) -> dict[str, np.ndarray]:
    """A 10-bit GRBG mosaic of the synthetic RGB image, (width + 32) x (height + 24) for a
    width x height output: black level 25 maps 0, white level 1023 maps 1."""
    raw_width, raw_height = APP.extents.input_of(width, height)
    rgb = images.synthetic(raw_width, raw_height, 3)
    level = BLACK_LEVEL + np.rint(rgb * (WHITE_LEVEL - BLACK_LEVEL)).astype(np.uint16)
    mosaic = level[..., 1].copy()                    # G at (even x, even y) and (odd x, odd y)
    mosaic[0::2, 1::2] = level[0::2, 1::2, 0]         # R at (odd x, even y)
    mosaic[1::2, 0::2] = level[1::2, 0::2, 2]         # B at (even x, odd y)
    return {"input": mosaic}


APP = App(
    name="camera_pipe",
    default_width=2560,
    default_height=1920,
    inputs=(Input("input", np.uint16),),
    output_channels=3,
    define=define,
    schedule_manual=schedule_manual,
    make_inputs=make_inputs,
    extents=Extents(border=(2 * SHIFT_X, 2 * SHIFT_Y), step=32, rounds_down=True),
)
