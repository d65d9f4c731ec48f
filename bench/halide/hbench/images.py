"""Images: the deterministic synthetic test image, and numpy <-> Halide buffer conversion.

Arrays use the `.npy` layout of the app specs (`[H, W]` or `[H, W, C]`, channels last). Halide
buffers are planar with x innermost (dimensions x, y[, c]), the layout Halide's own apps use for
multi-channel images, so every schedule vectorizes over unit-stride x.
"""

import halide as hl
import numpy as np

from hbench.app import Input

SEED = 20240601


def synthetic(width: int, height: int, channels: int | None, seed: int = SEED) -> np.ndarray:
    """A float32 image in [0, 1] with smooth regions, sharp edges and noise.

    Smooth: a per-channel mix of low-frequency sinusoids. Edges: a dozen rectangles and disks
    that shift the level by a random step. Noise: Gaussian, sigma 0.02. Shape `[H, W]` when
    `channels` is None, else `[H, W, channels]`.
    """
    rng = np.random.default_rng(seed)
    planes = []
    xs = np.linspace(0.0, 1.0, width, dtype=np.float32)[None, :]
    ys = np.linspace(0.0, 1.0, height, dtype=np.float32)[:, None]
    for _ in range(channels or 1):
        fx, fy = rng.uniform(1.0, 4.0, size=2)
        px, py = rng.uniform(0.0, 2.0 * np.pi, size=2)
        smooth = 0.5 + 0.2 * np.sin(2 * np.pi * fx * xs + px) * np.cos(2 * np.pi * fy * ys + py)
        planes.append(smooth.astype(np.float32))
    image = np.stack(planes, axis=-1)
    for _ in range(6):
        x0, x1 = np.sort(rng.integers(0, width + 1, size=2))
        y0, y1 = np.sort(rng.integers(0, height + 1, size=2))
        image[y0:y1, x0:x1] += rng.uniform(-0.3, 0.3, size=image.shape[-1]).astype(np.float32)
    for _ in range(6):
        cx, cy = rng.uniform(0.0, 1.0, size=2)
        radius = rng.uniform(0.05, 0.25)
        inside = (xs - cx) ** 2 + (ys - cy) ** 2 < radius**2
        image[inside] += rng.uniform(-0.3, 0.3, size=image.shape[-1]).astype(np.float32)
    image += rng.normal(0.0, 0.02, size=image.shape).astype(np.float32)
    np.clip(image, 0.0, 1.0, out=image)
    return image if channels else image[..., 0]


def quantize(image: np.ndarray, dtype: type, top: float) -> np.ndarray:
    """`image` in [0, 1] scaled to [0, top] and rounded to the integer `dtype`."""
    return np.rint(image * top).astype(dtype)


def to_halide(image: np.ndarray) -> tuple[hl.Buffer, np.ndarray]:
    """A planar Halide buffer (x, y[, c]) over a copy of `image` (`.npy` layout).

    Returns the buffer and the array that owns its memory; keep both alive together.
    """
    planar = np.ascontiguousarray(np.moveaxis(image, -1, 0) if image.ndim == 3 else image)
    return hl.Buffer(planar), planar


def from_halide(buffer: hl.Buffer) -> np.ndarray:
    """A copy of a planar Halide buffer (x, y[, c]) in `.npy` layout."""
    planar = np.asarray(buffer)
    return np.array(np.moveaxis(planar, 0, -1) if planar.ndim == 3 else planar)


def load_input(path: str, spec: Input) -> np.ndarray:
    """The input image `spec` from a `.npy` file, checked against its dtype and channel count."""
    image = np.load(path)
    spec.check(path, image)
    return image
