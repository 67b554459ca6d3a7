"""Entry point of the packaged app (build.spec): the same `workbench` command, frozen."""

import sys

from workbench.cli import main

if __name__ == "__main__":
    sys.exit(main())
