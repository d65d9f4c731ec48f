"""Halide 21 yardstick for Tessera's benchmark apps.

The seven pipelines of ../shared/apps/*.md written in Halide's Python API (`hbench.apps`),
their inputs (`hbench.images`), the schedule variants timed against Tessera (`hbench.variants`:
a hand-written manual schedule and the Mullapudi2016, Adams2019 and Li2018 autoschedulers), and
the measurement of one variant in one process (`hbench.worker`). `run.py` and `selftest.py` next
to this package are the entry points.
"""
