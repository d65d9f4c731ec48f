"""stencil_chain: 32 chained 5x5 uint16 stencils (../shared/apps/stencil_chain.md)."""

import halide as hl
import numpy as np

from hbench import images
from hbench.app import Algorithm, App, Input, single_input

STAGES = 32
RADIUS = 2

x, y = hl.Var("x"), hl.Var("y")


def weight(i: int, j: int) -> int:
    """The spec's weight of the tap at x offset `i`, y offset `j`."""
    return (i + 3) * (j + 7)


def define() -> Algorithm:
    image = hl.ImageParam(hl.UInt(16), 2, "input")
    stages = [hl.BoundaryConditions.repeat_edge(image)]
    taps = range(-RADIUS, RADIUS + 1)
    for s in range(1, STAGES + 1):
        previous, stage = stages[-1], hl.Func(f"stage{s}")
        # uint16 throughout: the products and sums wrap modulo 2^16, as the spec defines.
        terms = [hl.u16(weight(i, j)) * previous[x + i, y + j] for j in taps for i in taps]
        stage[x, y] = sum(terms[1:], terms[0])
        stages.append(stage)
    return Algorithm([image], stages[-1], stages={"stages": stages})


def schedule_manual(alg: Algorithm) -> None:
    # The spec's hint: every stage computed whole, in parallel 32-row strips, 32-lane uint16
    # vectors. The app is ALU-bound and one stage fits the L3; fused or sliding chains were
    # slower on this machine (measured for the spec).
    for stage in alg.stages["stages"][1:]:
        stage.compute_root().parallel(y, 32).vectorize(x, 32)


APP = App(
    name="stencil_chain",
    default_width=1536,
    default_height=2560,
    inputs=(Input("input", np.uint16),),
    output_channels=None,
    define=define,
    schedule_manual=schedule_manual,
    make_inputs=single_input(lambda width, height: images.quantize(
        images.synthetic(width, height, None), np.uint16, 65535)),
)
