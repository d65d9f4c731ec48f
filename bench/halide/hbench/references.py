"""Plain numpy implementations of the specs (../shared/apps/*.md), which selftest.py checks
the Halide apps against at small sizes.

Each takes the app's inputs by name, in `.npy` layout (`[H, W]` or `[H, W, C]`), and returns
its output in the same layout. They follow the spec's definitions directly, storing every
stage on the grid it is needed on, with no regard for speed.
"""

import numpy as np

from hbench.apps import camera_pipe, multigrid, pyramid_blend, stencil_chain


def blur(inputs: dict) -> np.ndarray:
    """blur.md: uint16 sums wrap, division rounds down."""
    image = inputs["input"]
    rows = (image[:, :-2] + image[:, 1:-1] + image[:, 2:]) // 3
    return (rows[:-2] + rows[1:-1] + rows[2:]) // 3


def histeq(inputs: dict) -> np.ndarray:
    """histeq.md: int32 counts, float32 scale, rounding half to even."""
    image = inputs["input"]
    n = np.int32(image.size)
    hist = np.bincount(image.ravel(), minlength=256).astype(np.int32)
    cdf = np.cumsum(hist, dtype=np.int32)
    cmin = min(n, np.where(hist > 0, cdf, n).min())
    scale = np.float32(255) / np.float32(max(n - cmin, 1))
    level = np.rint((cdf - cmin).astype(np.float32) * scale)
    lut = np.clip(level, np.float32(0), np.float32(255)).astype(np.uint8)
    return lut[image]


def shifted(a: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """b[y, x] = a[y + dy, x + dx] over a's own frame, edges replicated (the callers only use
    points far enough inside the frame that the replicated edges never reach them)."""
    height, width = a.shape[:2]
    rows = np.clip(np.arange(height) + dy, 0, height - 1)
    cols = np.clip(np.arange(width) + dx, 0, width - 1)
    return a[rows][:, cols]


def camera_pipe_lut() -> np.ndarray:
    """The tone curve for 0..1023, in float64 as the spec computes it."""
    black, white = camera_pipe.BLACK_LEVEL, camera_pipe.WHITE_LEVEL
    i = np.arange(1024)
    cb = 2.0 - 2.0 ** (np.float64(np.float32(camera_pipe.CONTRAST)) / 100.0)
    ca = 2.0 - 2.0 * cb
    xf = np.clip((i - black).astype(np.float64) * (1.0 / (white - black)), 0.0, 1.0)
    g = xf ** (1.0 / np.float64(np.float32(camera_pipe.GAMMA)))
    z = np.where(g > 0.5, 1.0 - (ca * (1 - g) * (1 - g) + cb * (1 - g)), ca * g * g + cb * g)
    level = np.clip(z * 255.0 + 0.5, 0.0, 255.0).astype(np.uint8)
    return np.where(i <= black, 0, np.where(i > white, 255, level)).astype(np.uint8)


def camera_pipe_demosaic(den: np.ndarray) -> list[np.ndarray]:
    """Step 3 on the denoised mosaic (raw coordinates, even size): full-resolution r, g, b."""
    def i16(v):
        return v.astype(np.int16).astype(np.int32)

    def avg(a, b):
        return i16((a + b + 1) >> 1)

    def at(plane, dx, dy):
        return shifted(plane, dx, dy)

    g_gr, r_r = den[0::2, 0::2], den[0::2, 1::2]
    b_b, g_gb = den[1::2, 0::2], den[1::2, 1::2]
    g_r = np.where(np.abs(at(g_gr, 1, 0) - g_gr) < np.abs(at(g_gb, 0, -1) - g_gb),
                   avg(at(g_gr, 1, 0), g_gr), avg(at(g_gb, 0, -1), g_gb))
    g_b = np.where(np.abs(at(g_gb, -1, 0) - g_gb) < np.abs(at(g_gr, 0, 1) - g_gr),
                   avg(at(g_gb, -1, 0), g_gb), avg(at(g_gr, 0, 1), g_gr))
    r_gr = i16((g_gr - avg(g_r, at(g_r, -1, 0))) + avg(at(r_r, -1, 0), r_r))
    b_gr = i16((g_gr - avg(g_b, at(g_b, 0, -1))) + avg(b_b, at(b_b, 0, -1)))
    r_gb = i16((g_gb - avg(g_r, at(g_r, 0, 1))) + avg(r_r, at(r_r, 0, 1)))
    b_gb = i16((g_gb - avg(g_b, at(g_b, 1, 0))) + avg(b_b, at(b_b, 1, 0)))
    rp = i16((g_b - avg(g_r, at(g_r, -1, 1))) + avg(r_r, at(r_r, -1, 1)))
    rn = i16((g_b - avg(at(g_r, -1, 0), at(g_r, 0, 1))) + avg(at(r_r, -1, 0), at(r_r, 0, 1)))
    r_b = np.where(np.abs(r_r - at(r_r, -1, 1)) < np.abs(at(r_r, -1, 0) - at(r_r, 0, 1)), rp, rn)
    bp = i16((g_r - avg(g_b, at(g_b, 1, -1))) + avg(b_b, at(b_b, 1, -1)))
    bn = i16((g_r - avg(at(g_b, 1, 0), at(g_b, 0, -1))) + avg(at(b_b, 1, 0), at(b_b, 0, -1)))
    b_r = np.where(np.abs(b_b - at(b_b, 1, -1)) < np.abs(at(b_b, 1, 0) - at(b_b, 0, -1)), bp, bn)

    def interleave(top_left, top_right, bottom_left, bottom_right):
        full = np.empty(den.shape, dtype=np.int32)
        full[0::2, 0::2], full[0::2, 1::2] = top_left, top_right
        full[1::2, 0::2], full[1::2, 1::2] = bottom_left, bottom_right
        return full

    return [interleave(r_gr, r_r, r_b, r_gb), interleave(g_gr, g_r, g_b, g_gb),
            interleave(b_gr, b_r, b_b, b_gb)]


def camera_pipe_output(inputs: dict) -> np.ndarray:
    """camera_pipe.md. Every stage is computed over the whole raw mosaic in raw coordinates
    (output pixel (x, y) is raw (x + 16, y + 12)); the reads near its edges that the spec
    never makes land on replicated values that do not reach the output."""
    raw = inputs["input"]
    width, height = camera_pipe.APP.output_size_of(inputs)
    dx0, dy0 = camera_pipe.SHIFT_X, camera_pipe.SHIFT_Y
    # An even-sized frame keeps the Bayer quads whole; it still holds every pixel read.
    frame = raw[: raw.shape[0] // 2 * 2, : raw.shape[1] // 2 * 2].astype(np.int32)
    biggest = np.maximum(np.maximum(shifted(frame, -2, 0), shifted(frame, 2, 0)),
                         np.maximum(shifted(frame, 0, -2), shifted(frame, 0, 2)))
    den = np.minimum(np.maximum(frame, 0), biggest)
    rgb = camera_pipe_demosaic(den)
    lut = camera_pipe_lut()
    curved = []
    for row in camera_pipe.MATRIX:
        value = (row[3] + row[0] * rgb[0] + row[1] * rgb[1] + row[2] * rgb[2]) // 256
        corrected = value.astype(np.int16).astype(np.int32)
        curved.append(lut[np.clip(corrected, 0, 1023)].astype(np.int32))
    s32 = int(np.clip(np.float32(camera_pipe.SHARPEN_STRENGTH) * np.float32(32.0), 0, 255))
    channels = []
    for cur in curved:
        def avg8(a, b):
            return (a + b + 1) >> 1
        unsharp_y = avg8(avg8(shifted(cur, 0, -1), shifted(cur, 0, 1)), cur)
        unsharp = avg8(avg8(shifted(unsharp_y, -1, 0), shifted(unsharp_y, 1, 0)), unsharp_y)
        mask = cur - unsharp
        sharpened = cur + (mask * s32).astype(np.int16).astype(np.int32) // 32
        channels.append(np.clip(sharpened, 0, 255).astype(np.uint8))
    return np.stack(channels, axis=-1)[dy0:dy0 + height, dx0:dx0 + width]


def stencil_chain_output(inputs: dict) -> np.ndarray:
    """stencil_chain.md as its grid formulation: pad by 2 * STAGES with edge replication, then
    STAGES 'valid' 5x5 correlations in wrapping uint16 arithmetic."""
    r = stencil_chain.RADIUS
    stage = np.pad(inputs["input"], r * stencil_chain.STAGES, mode="edge")
    for _ in range(stencil_chain.STAGES):
        height, width = stage.shape[0] - 2 * r, stage.shape[1] - 2 * r
        total = np.zeros((height, width), dtype=np.uint16)
        for j in range(-r, r + 1):
            for i in range(-r, r + 1):
                tap = stage[r + j:r + j + height, r + i:r + i + width]
                total += np.uint16(stencil_chain.weight(i, j)) * tap
        stage = total
    return stage


def pyramid_size(width: int, height: int, level: int) -> tuple[int, int]:
    return (width + (1 << level) - 1) >> level, (height + (1 << level) - 1) >> level


def pyramid_down(f: np.ndarray, width: int, height: int) -> np.ndarray:
    """down(): `f` ([H, W, ...] at one level) to the next level (`width` x `height`)."""
    taps = ((-2, 1.0), (-1, 4.0), (0, 6.0), (1, 4.0), (2, 1.0))
    cols = np.arange(width) * 2
    dx = sum(w * f[:, np.clip(cols + k, 0, f.shape[1] - 1)] for k, w in taps) / 16.0
    rows = np.arange(height) * 2
    return sum(w * dx[np.clip(rows + k, 0, f.shape[0] - 1)] for k, w in taps) / 16.0


def pyramid_expand(f: np.ndarray, width: int, height: int) -> np.ndarray:
    """expand(): `f` ([H, W, ...] at one level) to the finer level (`width` x `height`)."""
    def upsample(g, n, axis):
        size = g.shape[axis]
        half = np.arange(n) // 2

        def take(offset):
            return np.take(g, np.clip(half + offset, 0, size - 1), axis=axis)
        even = (take(-1) + 6.0 * take(0) + take(1)) * 0.125
        odd = (take(0) + take(1)) * 0.5
        parity = (np.arange(n) % 2 == 0).reshape([-1 if a == axis else 1 for a in range(g.ndim)])
        return np.where(parity, even, odd)
    return upsample(upsample(f, width, 1), height, 0)


def pyramid_blend_output(inputs: dict) -> np.ndarray:
    """pyramid_blend.md in float64, every level on its own W_l x H_l grid."""
    height, width = inputs["mask"].shape
    levels = pyramid_blend.LEVELS
    sizes = [pyramid_size(width, height, l) for l in range(levels)]
    gaussian = {key: [inputs[name].astype(np.float64)]
                for key, name in (("A", "img1"), ("B", "img2"), ("M", "mask"))}
    for pyramid in gaussian.values():
        for l in range(1, levels):
            pyramid.append(pyramid_down(pyramid[-1], *sizes[l]))
    laplacian = {key: [gaussian[key][l] - pyramid_expand(gaussian[key][l + 1], *sizes[l])
                       for l in range(levels - 1)] + [gaussian[key][-1]] for key in "AB"}
    weight = [m[..., None] for m in gaussian["M"]]
    blend = [laplacian["A"][l] * weight[l] + laplacian["B"][l] * (1 - weight[l])
             for l in range(levels)]
    out = blend[-1]
    for l in range(levels - 2, -1, -1):
        out = pyramid_expand(out, *sizes[l]) + blend[l]
    return out.astype(np.float32)


def multigrid_output(inputs: dict) -> np.ndarray:
    """multigrid.md in float64, every level on its own (Nx_l + 1) x (Ny_l + 1) grid."""
    def interior(u):
        inside = np.zeros(u.shape, dtype=bool)
        inside[1:-1, 1:-1] = True
        return inside

    def neighbours(u):
        nb = np.zeros_like(u)
        nb[1:-1, 1:-1] = ((u[1:-1, :-2] + u[1:-1, 2:]) + u[:-2, 1:-1]) + u[2:, 1:-1]
        return nb

    def jacobi(u, f, steps):
        h2 = 1.0 / float((u.shape[1] - 1) ** 2)
        for _ in range(steps):
            step = multigrid.C0 * u + multigrid.C1 * (h2 * f + neighbours(u))
            u = np.where(interior(u), step, u)
        return u

    def restrict(r):
        padded = np.pad(r, 1)          # the residual is 0 outside the fine grid
        rows = (padded[:, 0:-2:2] + 2.0 * padded[:, 1:-1:2] + padded[:, 2::2]) * 0.25
        return (rows[0:-2:2] + 2.0 * rows[1:-1:2] + rows[2::2]) * 0.25

    def interpolate(e):
        def along(g, axis):
            g = np.moveaxis(g, axis, 0)
            fine = np.empty((2 * g.shape[0] - 1,) + g.shape[1:])
            fine[0::2], fine[1::2] = g, 0.5 * (g[:-1] + g[1:])
            return np.moveaxis(fine, 0, axis)
        return along(along(e, 1), 0)

    def vcycle(level, u, f):
        if level == multigrid.LEVELS - 1:
            return jacobi(u, f, multigrid.N_COARSE)
        u = jacobi(u, f, multigrid.N_PRE)
        invh2 = float((u.shape[1] - 1) ** 2)
        residual = np.where(interior(u), f - (4.0 * u - neighbours(u)) * invh2, 0.0)
        coarse_f = restrict(residual)
        e = vcycle(level + 1, np.zeros_like(coarse_f), coarse_f)
        return jacobi(u + interpolate(e), f, multigrid.N_POST)

    return vcycle(0, inputs["V"], inputs["F"])


REFERENCES = {"blur": blur, "histeq": histeq, "camera_pipe": camera_pipe_output,
              "stencil_chain": stencil_chain_output, "pyramid_blend": pyramid_blend_output,
              "multigrid": multigrid_output}
