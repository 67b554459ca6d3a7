"""`python -m kernels_bridge.worker`: the kernel benchmark worker process (see server.py)."""

import sys

from kernels_bridge.worker.server import main

sys.exit(main())
