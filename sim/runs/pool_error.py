"""The one error of the Dask pool (sim.runs.pool, sim.runs.pool_local): the workers or the
cluster cannot be used."""


class PoolError(RuntimeError):
    """The cluster cannot be used (unreachable scheduler, no workers); one line."""
