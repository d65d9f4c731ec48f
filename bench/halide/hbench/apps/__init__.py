"""The registry of benchmark apps, in the order of ../shared/apps (simplest first), then the
four added later."""

from hbench.app import App
from hbench.apps import (bilateral_grid, blur, camera_pipe, harris, histeq, interpolate,
                         local_laplacian, multigrid, pyramid_blend, stencil_chain, unsharp)

APPS: dict[str, App] = {
    module.APP.name: module.APP
    for module in (blur, unsharp, harris, histeq, bilateral_grid, local_laplacian, interpolate,
                   camera_pipe, pyramid_blend, multigrid, stencil_chain)
}
