"""The GUI side of the kernel bridge: no torch, no Qt.

`launcher` finds the Python that runs the worker, `connection` speaks to it (spawned or over
TCP), `jobs` builds sweeps and writes their CSV, and `run_controller` runs the worker's life
cycle and event pump for both the Kernels tab and `workbench kernels`.
"""
