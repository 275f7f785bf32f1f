"""Running independent jobs (perft subtrees, positions of a campaign) through Dask's
``distributed``: N local workers (a LocalCluster) or an existing cluster at a scheduler address.
Kept apart from what the jobs are, so either can change without the other.

Why Dask and not the standard library's ProcessPoolExecutor: a worker that dies (SIGKILL, out
of memory) is replaced by its nanny and its tasks rerun elsewhere, each task's result is
gathered once (nothing is counted twice), and the same code runs on a cluster. The price is
start-up: about 3 s for two local workers (import 0.9 s, cluster 2.1 s, measured by
``make bench-scale``), against 0.02-0.14 s for a ProcessPoolExecutor, which turns a dead
worker into BrokenProcessPool and loses the run. So ``-j 1`` runs in-process, with no pool.
"""

import logging
import os

#: seconds to wait for an existing scheduler before giving up with a one-line error
CONNECT_TIMEOUT = 5


class PoolError(RuntimeError):
    """The cluster cannot be used (unreachable scheduler, no workers); one line."""


def scheduler_address(address: str | None = None) -> str | None:
    """``--scheduler`` if given, else ``$DASK_SCHEDULER_ADDRESS``, else None (local workers)."""
    return address or os.environ.get("DASK_SCHEDULER_ADDRESS") or None


def open_client(processes: int, address: str | None = None):
    """A Dask client: of the scheduler at ``address``, or of ``processes`` local workers (one
    thread each: the jobs hold the GIL). The caller closes it (and its cluster)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise PoolError("Dask's distributed is not installed: pip install distributed") from None
    if address:
        try:
            return Client(address, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as e:
            reason = " ".join(str(e).split()) or type(e).__name__
            raise PoolError(f"cannot reach the Dask scheduler at {address}: {reason}") from None
    cluster = LocalCluster(n_workers=processes, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR)
    client = Client(cluster)
    client._posdata_cluster = cluster  # closed with the client (close_client)
    return client


def close_client(client) -> None:
    cluster = getattr(client, "_posdata_cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


def run_in_workers(fn, jobs: list[tuple], processes: int, address: str | None = None,
                   done=None):
    """``fn(*job)`` for every job, yielded in job order. ``processes == 1`` with no scheduler
    runs them here, one after another; otherwise on Dask workers (``fn`` must be importable by
    name: a module-level function of posdata). ``done(i, result)`` is called as each job
    finishes, in whatever order they finish (for progress)."""
    address = scheduler_address(address)
    if processes <= 1 and not address:
        for i, job in enumerate(jobs):
            result = fn(*job)
            if done:
                done(i, result)
            yield result
        return
    from distributed import as_completed

    client = open_client(processes, address)
    try:
        # pure=False: a job run twice (its worker died) is the same job, but two equal jobs
        # (two transpositions) are two jobs; keys are per call.
        futures = client.map(fn, *zip(*jobs), pure=False) if jobs else []
        index = {f.key: i for i, f in enumerate(futures)}
        results, next_out = {}, 0
        for future in as_completed(futures):
            i = index[future.key]
            results[i] = future.result()
            if done:
                done(i, results[i])
            while next_out in results:
                yield results.pop(next_out)
                next_out += 1
    finally:
        close_client(client)
