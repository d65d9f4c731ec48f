"""The registry of benchmark apps, in the order of ../shared/apps (simplest first)."""

from hbench.app import App
from hbench.apps import (bilateral_grid, blur, harris, histeq, interpolate, local_laplacian,
                         unsharp)

APPS: dict[str, App] = {
    module.APP.name: module.APP
    for module in (blur, unsharp, harris, histeq, bilateral_grid, local_laplacian, interpolate)
}
