"""histeq: histogram equalization of a uint8 image (../shared/apps/histeq.md)."""

import halide as hl
import numpy as np

from hbench import images
from hbench.app import Algorithm, App, Input, single_input

STRIP_ROWS = 256
SUB_HISTOGRAMS = 4

i, x, y = hl.Var("i"), hl.Var("x"), hl.Var("y")
strip, lane = hl.Var("strip"), hl.Var("lane")


def define() -> Algorithm:
    image = hl.ImageParam(hl.UInt(8), 2, "input")
    n = image.width() * image.height()
    hist, cdf, cmin = hl.Func("hist"), hl.Func("cdf"), hl.Func("cmin")
    lut, output = hl.Func("lut"), hl.Func("output")

    r = hl.RDom([hl.Range(0, image.width()), hl.Range(0, image.height())], "r")
    hist[i] = 0
    hist[hl.i32(image[r.x, r.y])] += 1

    s = hl.RDom([hl.Range(1, 255)], "s")
    cdf[i] = hist[i]
    cdf[s.x] = cdf[s.x - 1] + cdf[s.x]

    b = hl.RDom([hl.Range(0, 256)], "b")
    cmin[()] = n
    cmin[()] = hl.min(cmin[()], hl.select(hist[b.x] > 0, cdf[b.x], n))

    scale = hl.f32(255) / hl.f32(hl.max(n - cmin[()], 1))
    level = hl.round(hl.f32(cdf[i] - cmin[()]) * scale)
    lut[i] = hl.u8(hl.clamp(level, hl.f32(0), hl.f32(255)))
    output[x, y] = lut[hl.i32(image[x, y])]
    return Algorithm([image], output, stages={"hist": hist, "cdf": cdf, "cmin": cmin, "lut": lut,
                                            "r": r})


def schedule_manual(alg: Algorithm) -> None:
    # The histogram is factored (rfactor) into partial histograms, one per strip of
    # STRIP_ROWS rows and per column modulo SUB_HISTOGRAMS. Strips are built in parallel;
    # within a strip the sub-histograms take neighbouring pixels in turn, so runs of equal
    # pixels (smooth regions) do not serialize on one counter. They are then summed over all
    # (strip, lane) in vectorized passes over the 256 bins. The scan, minimum and table are
    # tiny and computed once. The gather is left scalar, unrolled: a 64-lane uint8 gather is
    # slower than scalar loads on AVX-512 (measured).
    hist, r = alg.stages["hist"], alg.stages["r"]
    ry_outer, ry_inner = hl.RVar("ry_outer"), hl.RVar("ry_inner")
    rx_outer, rx_inner = hl.RVar("rx_outer"), hl.RVar("rx_inner")
    hist.update().split(r.x, rx_outer, rx_inner, SUB_HISTOGRAMS) \
        .split(r.y, ry_outer, ry_inner, STRIP_ROWS)
    partial = hist.update().rfactor([(ry_outer, strip), (rx_inner, lane)])
    partial.compute_root().vectorize(i, 16).parallel(strip)
    partial.update().reorder(lane, rx_outer, ry_inner, strip).unroll(lane).parallel(strip)
    hist.compute_root().vectorize(i, 16)
    hist.update().vectorize(i, 16)
    for stage in ("cdf", "cmin", "lut"):
        alg.stages[stage].compute_root()
    alg.output.parallel(y, 8).unroll(x, 4)


def make_input(width: int, height: int) -> np.ndarray:
    """A low-contrast image (levels 51..204), so equalization has work to do."""
    return images.quantize(0.2 + 0.6 * images.synthetic(width, height, None), np.uint8, 255)


APP = App(
    name="histeq",
    default_width=4096,
    default_height=4096,
    inputs=(Input("input", np.uint8),),
    output_channels=None,
    define=define,
    schedule_manual=schedule_manual,
    make_inputs=single_input(make_input),
)
