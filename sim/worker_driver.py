"""One gateware driver per process, built on first use and kept: building one loads (or
compiles) the model, far more work than a subtree's generations. A forked worker inherits the
parent's driver, so the model is loaded once for the whole pool."""

_driver = None
_driver_sim = None


def worker_driver(sim: str, factory=None):
    """This process's driver for simulator ``sim``; ``factory`` (tests) builds a fresh one
    instead, bypassing the cache."""
    global _driver, _driver_sim
    if factory is not None:
        return factory()
    if _driver is None or _driver_sim != sim:
        from .backends import make_driver
        _driver, _driver_sim = make_driver(sim), sim
    return _driver
