"""multigrid: one Jacobi V-cycle of a 2-D Poisson multigrid solver
(../shared/apps/multigrid.md)."""

import halide as hl
import numpy as np

from hbench.app import Algorithm, App, Extents, Input
from hbench.exprs import defined

LEVELS, N_PRE, N_COARSE, N_POST = 4, 4, 10, 4
C0, C1 = 0.33333333333333337, 0.16666666666666666   # f64(1 - 2/3), f64((2/3) / 4)
# Rows per parallel strip of a smoothing group at levels 0, 1, 2 (the spec's hint).
STRIP = (128, 64, 32)
VECTOR = 8
NOISE_SEED = 20240602

x, y, yo, yi = hl.Var("x"), hl.Var("y"), hl.Var("yo"), hl.Var("yi")


class Grid:
    """Level `l` of the hierarchy: grid points 0..nx by 0..ny, spacing 1/nx."""

    def __init__(self, width: hl.Expr, height: hl.Expr, l: int):
        self.nx, self.ny = (width - 1) >> l, (height - 1) >> l
        self.invh2 = hl.f64(self.nx * self.nx)
        self.h2 = hl.f64(1.0) / self.invh2

    def interior(self) -> hl.Expr:
        return hl.likely((1 <= x) & (x <= self.nx - 1) & (1 <= y) & (y <= self.ny - 1))


def neighbours(u: hl.Func) -> hl.Expr:
    return ((u[x - 1, y] + u[x + 1, y]) + u[x, y - 1]) + u[x, y + 1]


def func(name: str, value: hl.Expr) -> hl.Func:
    """A new Func `name(x, y) = value`: every stage of this app is 2-D."""
    return defined(name, [x, y], value)


def smooth(u: hl.Func, f: hl.Func, grid: Grid, steps: int, name: str) -> list[hl.Func]:
    """`steps` chained weighted-Jacobi steps from `u` with right-hand side `f`."""
    chain = []
    for k in range(1, steps + 1):
        # Explicit f64: Halide reads a bare Python float as float32.
        jacobi = hl.f64(C0) * u[x, y] + hl.f64(C1) * (grid.h2 * f[x, y] + neighbours(u))
        u = func(f"{name}_{k}", hl.select(grid.interior(), jacobi, u[x, y]))
        chain.append(u)
    return chain


def define() -> Algorithm:
    v = hl.ImageParam(hl.Float(64), 2, "V")
    f = hl.ImageParam(hl.Float(64), 2, "F")
    grids = [Grid(v.width(), v.height(), l) for l in range(LEVELS)]
    stages: dict[str, list] = {"pre": [], "post": [], "restrict_x": [], "rhs": [],
                               "interp_x": [], "correct": [], "coarse": []}

    def vcycle(l: int, u0: hl.Func, rhs: hl.Func) -> hl.Func:
        grid = grids[l]
        if l == LEVELS - 1:
            stages["coarse"] = smooth(u0, rhs, grid, N_COARSE, f"coarse{l}")
            return stages["coarse"][-1]
        pre = smooth(u0, rhs, grid, N_PRE, f"pre{l}")
        u = pre[-1]
        residual = func(f"residual{l}", hl.select(
            grid.interior(), rhs[x, y] - (4.0 * u[x, y] - neighbours(u)) * grid.invh2,
            hl.f64(0.0)))
        restrict_x = func(f"restrict_x{l}", (residual[2 * x - 1, y] + 2.0 * residual[2 * x, y]
                                             + residual[2 * x + 1, y]) * 0.25)
        coarse_rhs = func(f"rhs{l + 1}", (restrict_x[x, 2 * y - 1] + 2.0 * restrict_x[x, 2 * y]
                                          + restrict_x[x, 2 * y + 1]) * 0.25)
        e = vcycle(l + 1, func(f"zero{l + 1}", hl.f64(0.0)), coarse_rhs)
        interp_x = func(f"interp_x{l}", hl.select(
            x % 2 == 0, e[x / 2, y], 0.5 * (e[x / 2, y] + e[x / 2 + 1, y])))
        interp_y = func(f"interp_y{l}", hl.select(
            y % 2 == 0, interp_x[x, y / 2], 0.5 * (interp_x[x, y / 2] + interp_x[x, y / 2 + 1])))
        correct = func(f"correct{l}", u[x, y] + interp_y[x, y])
        post = smooth(correct, rhs, grid, N_POST, f"post{l}")
        for key, value in (("pre", pre), ("post", post), ("restrict_x", restrict_x),
                           ("rhs", coarse_rhs), ("interp_x", interp_x), ("correct", correct)):
            stages[key].insert(0, value)
        return post[-1]

    output = vcycle(0, hl.BoundaryConditions.repeat_edge(v),
                    hl.BoundaryConditions.repeat_edge(f))
    return Algorithm([v, f], output, stages=stages)


def strips(f: hl.Func, rows: int) -> hl.Func:
    """`f` computed whole in parallel strips of `rows` rows (the last one guarded rather than
    shifted inwards, so an output shorter than a strip stays inside its buffer)."""
    return f.compute_root().split(y, yo, yi, rows, hl.TailStrategy.GuardWithIf).parallel(yo) \
        .vectorize(x, VECTOR)


def schedule_manual(alg: Algorithm) -> None:
    # The spec's hint. Each smoothing group (the 4 pre or 4 post steps of a level) is one
    # parallel loop over row strips of its last step (computed whole); its earlier steps are
    # computed per strip with overlapping halos (no sliding: 3-4x slower). The residual is
    # inlined into restrict_x, which is computed per strip of the coarse right-hand side (its
    # strips cover the fine level's strip rows). The interpolation and correction are computed
    # per strip of the post group they feed. The coarsest level is computed whole, step by step.
    st = alg.stages
    for l, rows in enumerate(STRIP):
        for group in (st["pre"][l], st["post"][l]):
            last = strips(group[-1], rows)
            for step in group[:-1]:
                step.compute_at(last, yo).vectorize(x, VECTOR)
        rhs = strips(st["rhs"][l], rows // 2)
        st["restrict_x"][l].compute_at(rhs, yo).vectorize(x, VECTOR)
        for stage in (st["interp_x"][l], st["correct"][l]):
            stage.compute_at(st["post"][l][-1], yo).vectorize(x, VECTOR)
    for step in st["coarse"]:
        strips(step, STRIP[-1])


def make_inputs(width: int, height: int) -> dict[str, np.ndarray]:
    """V: u = sin(pi x) sin(pi y) + x^2 + y^2 on the unit square, with uniform noise of 0.1
    inside (so the V-cycle has error to remove) and exact boundary values; F = -laplacian(u)
    = 2 pi^2 sin(pi x) sin(pi y) - 4, smooth. Both float64."""
    xs = np.linspace(0.0, 1.0, width)[None, :]
    ys = np.linspace(0.0, 1.0, height)[:, None]
    wave = np.sin(np.pi * xs) * np.sin(np.pi * ys)
    v = wave + xs**2 + ys**2
    rng = np.random.default_rng(NOISE_SEED)
    v[1:-1, 1:-1] += rng.uniform(-0.1, 0.1, size=(height - 2, width - 2))
    f = 2.0 * np.pi**2 * wave - 4.0
    return {"V": v, "F": f}


APP = App(
    name="multigrid",
    default_width=2049,
    default_height=2049,
    inputs=(Input("V", np.float64), Input("F", np.float64)),
    output_channels=None,
    define=define,
    schedule_manual=schedule_manual,
    make_inputs=make_inputs,
    extents=Extents(step=8, offset=1),
)
