"""A local Ray cluster for the tests: starts one on 127.0.0.1, prints its address, and stops it
(every process it started) when its stdin closes. Run as `python tests/support/ray_head.py CPUS`."""

from __future__ import annotations

import sys

import ray


def main() -> None:
    cpus = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    context = ray.init(
        address="local",  # a new cluster, never one another process started
        num_cpus=cpus,
        include_dashboard=False,
        log_to_driver=False,
        logging_level="ERROR",
        _node_ip_address="127.0.0.1",
    )
    print(context.address_info["gcs_address"], flush=True)
    sys.stdin.read()  # until the test closes the pipe (or dies)
    ray.shutdown()


if __name__ == "__main__":
    main()
