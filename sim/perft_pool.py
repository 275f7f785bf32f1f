"""Running independent jobs in worker processes. Kept apart from what the jobs are (hardware
perft subtrees) so the way they are spread can be swapped without touching them."""

import multiprocessing


def _call(task):
    fn, args = task
    return fn(*args)


def run_in_workers(fn, jobs: list[tuple], processes: int):
    """``fn(*job)`` for every job in ``processes`` forked workers, yielded in job order as
    the results arrive. ``fn`` must be a module-level function (it is pickled by name).
    Forked, not spawned: a worker inherits the parent's loaded model and imports."""
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(min(processes, len(jobs))) as pool:
        yield from pool.imap(_call, [(fn, job) for job in jobs], chunksize=1)
