"""Running independent jobs (perft subtrees, positions of a campaign) through Dask's
``distributed``: N local workers (sim.runs.pool_local: mutual TLS with the run's own
credentials, no HTTP server) or an existing cluster at a scheduler address (with TLS options,
sim.runs.pool_tls). Kept apart from what the jobs are, so either can change without the other.

Why Dask and not the standard library's ProcessPoolExecutor: a worker that dies (SIGKILL, out
of memory) is replaced by its nanny and its tasks rerun elsewhere, each task's result is
gathered once (nothing is counted twice), and the same code runs on a cluster. The price is
start-up (seconds, against a fraction of a second for a ProcessPoolExecutor, which turns a dead
worker into BrokenProcessPool and loses the run): so ``-j 1`` runs in-process, with no pool.

A scheduler runs whatever its clients submit on its workers, and results come back pickled:
connect only to one you would trust with a shell.
"""

import os
import queue
import time

from .pool_error import PoolError

#: seconds to wait for an existing scheduler before giving up with a one-line error
CONNECT_TIMEOUT = 5
#: seconds with no job finished between checks that the scheduler answers and has workers
CHECK_EVERY = 2


def scheduler_address(address: str | None = None) -> str | None:
    """``--scheduler`` if given, else ``$DASK_SCHEDULER_ADDRESS``, else None (local workers)."""
    return address or os.environ.get("DASK_SCHEDULER_ADDRESS") or None


def one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def open_client(processes: int, address: str | None = None):
    """A Dask client: of the scheduler at ``address`` (with the ``Security`` it carries, if
    any, else Dask's configuration), or of ``processes`` local workers (one thread each: the
    jobs hold the GIL). The caller closes it (close_client), which closes its workers."""
    try:
        from distributed import Client
    except ImportError:
        raise PoolError("Dask's distributed is not installed: pip install distributed") from None
    if address:
        try:
            return Client(str(address), timeout=CONNECT_TIMEOUT,
                          security=getattr(address, "security", None))
        except (OSError, TimeoutError, ValueError, TypeError) as e:
            raise PoolError(f"cannot reach the Dask scheduler at {address}: "
                            f"{one_line(e)}") from None
    from .pool_local import LocalWorkers
    try:
        workers = LocalWorkers(processes)
    except ImportError as e:  # cryptography, for the run's credentials
        raise PoolError(f"cannot start local workers: {one_line(e)}") from None
    try:
        client = workers.client()
    except BaseException:
        workers.close()
        raise
    client._posdata_workers = workers  # closed with the client (close_client)
    return client


def close_client(client) -> None:
    workers = getattr(client, "_posdata_workers", None)
    try:
        client.close(timeout=CONNECT_TIMEOUT)
    except Exception:
        pass  # a scheduler that stopped answering: what brought us here says so
    finally:
        if workers is not None:
            workers.close()


def run_in_workers(fn, jobs: list[tuple], processes: int, address: str | None = None,
                   done=None, local: bool = False):
    """``fn(*job)`` for every job, yielded in job order. ``processes == 1`` with no scheduler
    runs them here, one after another; otherwise on Dask workers (``fn`` must be importable by
    name: a module-level function of posdata). ``done(i, result)`` is called as each job
    finishes, in whatever order they finish (for progress). A scheduler that stops answering,
    or has no worker, for the workers' time-to-live ends the run with PoolError. ``local``:
    this process's own workers only (pool_local), whatever $DASK_SCHEDULER_ADDRESS says."""
    address = None if local else scheduler_address(address)
    if processes <= 1 and not address:
        for i, job in enumerate(jobs):
            result = fn(*job)
            if done:
                done(i, result)
            yield result
        return
    from .pool_local import worker_ttl

    limit = worker_ttl()
    client = open_client(processes, address)
    try:
        # pure=False: a job run twice (its worker died) is the same job, but two equal jobs
        # (two transpositions) are two jobs; keys are per call.
        futures = client.map(fn, *zip(*jobs), pure=False) if jobs else []
        index = {f.key: i for i, f in enumerate(futures)}
        watch = Watch(client, futures, limit)
        results, next_out = {}, 0
        for _ in futures:
            future = watch.next_finished()
            i = index[future.key]
            results[i] = watch.result(future)
            if done:
                done(i, results[i])
            while next_out in results:
                yield results.pop(next_out)
                next_out += 1
    finally:
        close_client(client)


class Watch:
    """Waits on the run's futures, asking the scheduler every CHECK_EVERY seconds with no news
    whether it answers and has a worker: PoolError once it has not, or has had none, for
    ``limit`` seconds. A worker that stops answering is the scheduler's to notice (its
    worker-ttl); this bounds what the scheduler cannot mend."""

    def __init__(self, client, futures, limit: float):
        self.client, self.limit = client, limit
        self.address = client.scheduler.address
        self.last_good = time.monotonic()
        self.finished = queue.SimpleQueue()
        for future in futures:
            future.add_done_callback(self.finished.put)

    def next_finished(self):
        """The next future to finish (in whatever order they do)."""
        while True:
            try:
                future = self.finished.get(timeout=CHECK_EVERY)
            except queue.Empty:
                self.check()
                continue
            self.last_good = time.monotonic()
            return future

    def result(self, future):
        """The finished ``future``'s result, or its job's exception raised. Fetching a result
        goes through the scheduler (and the worker that holds it): watched the same way."""
        if future.status == "cancelled":
            raise PoolError(f"the Dask scheduler at {self.address} cancelled the run's jobs")
        if future.status == "error":
            future.result()  # the job's exception came with the news: raised here
        while True:
            try:
                return future.result(timeout=CHECK_EVERY)
            except TimeoutError:
                self.check()

    def check(self) -> None:
        import asyncio  # here: a run in this process never needs it, and it takes a while

        client = self.client

        async def workers():
            return await asyncio.wait_for(client.scheduler.ncores_running(), self.limit)
        try:
            problem = None if client.sync(workers) else "has had no worker"
        except Exception:
            problem = "has not answered"
        if problem is None:
            self.last_good = time.monotonic()
        elif time.monotonic() - self.last_good >= self.limit:
            raise PoolError(f"the Dask scheduler at {self.address} {problem} for "
                            f"{self.limit:g} s")
