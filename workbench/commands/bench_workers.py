"""`workbench bench --workers N` and `--cluster ADDRESS`: the runner for a run over several
client processes (docs/scale.md). One worker, or a plan one worker covers, keeps the
single-process Runner: the same code path as the GUI."""

from __future__ import annotations

import argparse
import sys

from workbench.commands.common import Endpoint, fail, int_in
from workbench.core.history.run_history import RunStore
from workbench.core.load.client_load import usable_cores
from workbench.core.load.prompts import PromptBuilder
from workbench.core.planning.run_plan import MAX_CONCURRENCY, RunPlan
from workbench.core.run.runner import Runner
from workbench.core.scale.cluster import ClusterError
from workbench.core.scale.coordinator import ShardedRunner, Workers
from workbench.core.scale.shards import shard_count, split
from workbench.core.transport.clients import ClientPool

DEFAULT_WORKERS = usable_cores()


def add_worker_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workers",
        type=int_in(1, MAX_CONCURRENCY, "workers"),
        default=None,
        metavar="N",
        help=f"client processes that share the concurrency, each with its own event loop "
        f"(default: this machine's cores, {DEFAULT_WORKERS}; 1: one process). Never more than "
        "the concurrency, nor the usable cores unless --allow-oversubscribe; a route "
        "comparison runs in one process",
    )
    p.add_argument(
        "--allow-oversubscribe",
        action="store_true",
        help="run --workers N even when N is more than this machine's usable cores (the "
        "workers then queue for CPU and their timings are the client's, not the server's)",
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
    from workbench.core.scale.cluster import address_of, ray_module

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
        from workbench.core.scale.cluster import RayWorkers

        cluster = RayWorkers(args.cluster, args.workers, shard_count(plan, MAX_CONCURRENCY))
        cluster.connect()
        return cluster
    count = shard_count(plan, _within_cores(args.workers, args.allow_oversubscribe))
    if count <= 1:
        return None
    from workbench.core.scale.worker_process import ProcessWorkers

    return ProcessWorkers(count)


def _within_cores(asked: int | None, allow: bool) -> int:
    """--workers, capped at the usable cores (with a warning) unless --allow-oversubscribe."""
    cores = usable_cores()
    if asked is None:
        return DEFAULT_WORKERS
    if asked <= cores or allow:
        return asked
    print(
        f"warning: --workers {asked} is more than the {cores} usable core(s) here; running "
        f"{cores}. Workers queueing for CPU stamp tokens late, so their figures would be the "
        "client's, not the server's (--allow-oversubscribe runs them anyway)",
        file=sys.stderr,
    )
    return cores


def client_processes(runner: Runner | ShardedRunner) -> int:
    """The processes measuring on this machine: the workers and this coordinator, or one."""
    from workbench.core.scale.worker_process import ProcessWorkers

    if isinstance(runner, ShardedRunner) and isinstance(runner.workers, ProcessWorkers):
        return runner.workers.count + 1
    return 1


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
    shares = [shard.plan.concurrency_levels[0] for shard in split(plan, workers.count)]
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
