"""The worker side of the kernel bridge: the process `python -m kernels_bridge.worker`.

Only this package imports torch and Triton (`bench`, `reference`, `timing`, `adapters/`,
`triton_kernels/`); `server` speaks the protocol and imports them lazily, so a worker without
torch still starts and says so in its hello. Importing this package loads neither.
"""
