"""One gateware driver per process, built on first use and kept: building one loads (or
compiles) the model, far more work than a subtree's generations. A forked worker inherits the
parent's driver, so the model is loaded once for the whole pool."""

_driver = None
_driver_key = None


def worker_driver(sim: str, factory=None, variant: str = "chess"):
    """This process's driver for simulator ``sim`` and the tables of ``variant``; ``factory``
    (tests) builds a fresh one instead, bypassing the cache."""
    global _driver, _driver_key
    if factory is not None:
        return factory()
    if _driver is None or _driver_key != (sim, variant):
        from .backends import make_driver
        options = {} if variant == "chess" else {"variant": variant}
        _driver, _driver_key = make_driver(sim, **options), (sim, variant)
    return _driver
