"""One gateware driver per process, built on first use and kept: building one loads (or
compiles) the model, far more work than a subtree's generations. A worker process builds its
own on its first task and keeps it for the rest."""

_driver = None
_driver_key = None


def worker_driver(target, factory=None, variant: str = "chess"):
    """This process's driver for ``target`` (a sim.drivers.targets.Target or a name) and the
    tables of ``variant``; ``factory`` (tests) builds a fresh one instead, bypassing the cache."""
    global _driver, _driver_key
    if factory is not None:
        return factory()
    from .targets import as_target, make_driver
    key = (as_target(target), variant)
    if _driver is None or _driver_key != key:
        if _driver is not None:
            _driver.close()
        options = {} if variant == "chess" else {"variant": variant}
        _driver, _driver_key = make_driver(key[0], **options), key
    return _driver
