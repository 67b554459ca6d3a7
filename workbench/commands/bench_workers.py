"""`workbench bench --workers N` and `--cluster ADDRESS`: the runner for a run over several
client processes (docs/scale.md). One worker, or a plan one worker covers, keeps the
single-process Runner: the same code path as the GUI."""

from __future__ import annotations

import argparse
import os
import sys

from workbench.commands.common import Endpoint, fail, int_in
from workbench.core.clients import ClientPool
from workbench.core.cluster import ClusterError
from workbench.core.coordinator import ShardedRunner, Workers
from workbench.core.prompts import PromptBuilder
from workbench.core.run_history import RunStore
from workbench.core.runner import MAX_CONCURRENCY, Runner, RunPlan
from workbench.core.shards import shard_count, split

DEFAULT_WORKERS = os.cpu_count() or 1


def add_worker_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workers",
        type=int_in(1, MAX_CONCURRENCY, "workers"),
        default=None,
        metavar="N",
        help=f"client processes that share the concurrency, each with its own event loop "
        f"(default: this machine's cores, {DEFAULT_WORKERS}; 1: one process). Never more than "
        "the concurrency; a route comparison runs in one process",
    )
    p.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="run the workers as Ray actors across a cluster's nodes: ray://HOST:PORT, "
        "HOST:PORT (the head's GCS port) or auto; --workers then counts actors (default: the "
        "cluster's CPUs, at most the concurrency). Needs "
        "pip install 'attention-workbench[cluster]'",
    )


def check_cluster(args: argparse.Namespace) -> bool:
    """False (after saying why) when --cluster cannot work: Ray missing, a bad address."""
    if not args.cluster:
        return True
    from workbench.core.cluster import address_of, ray_module

    try:
        ray_module()
        address_of(args.cluster)
    except ClusterError as exc:
        fail(str(exc))
        return False
    return True


def _workers(args: argparse.Namespace, plan: RunPlan) -> Workers | None:
    """The worker set for this plan, or None for one process (raises ClusterError)."""
    if args.cluster:
        from workbench.core.cluster import RayWorkers

        cluster = RayWorkers(args.cluster, args.workers, shard_count(plan, MAX_CONCURRENCY))
        cluster.connect()
        return cluster
    count = shard_count(plan, args.workers or DEFAULT_WORKERS)
    if count <= 1:
        return None
    from workbench.core.worker_process import ProcessWorkers

    return ProcessWorkers(count)


def make_runner(
    args: argparse.Namespace,
    plan: RunPlan,
    pool: ClientPool,
    store: RunStore | None,
    endpoints: dict[str | None, Endpoint],
    builder: PromptBuilder,
) -> Runner | ShardedRunner | None:
    """The runner for the flags; None after saying why the cluster cannot be used."""
    try:
        workers = _workers(args, plan)
    except ClusterError as exc:
        fail(str(exc))
        return None
    if workers is None:
        return Runner(
            pool,
            sink=store,
            keys=lambda target: endpoints[target.route].api_key,
            builder=builder,
            keep_results=False,  # rows stream to the CSV and the summary; memory stays flat
        )
    shares = [shard.plan.concurrency for shard in split(plan, workers.count)]
    print(f"Workers: {workers.describe(shares)}", file=sys.stderr)
    return ShardedRunner(
        workers,
        pool,
        sink=store,
        keys=lambda target: endpoints[target.route].api_key,
        builder=builder,
        transport=pool.transport,
        options={e.base_url: e.options for e in endpoints.values()},
        route_keys={route: e.api_key for route, e in endpoints.items()},
        keep_results=False,
    )
