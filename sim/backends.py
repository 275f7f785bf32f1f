"""Choosing a gateware simulator by name. Imports happen here, on demand, so that software-only
commands never import amaranth."""

SIMULATORS = ("cxxrtl", "pysim")


def make_driver(sim: str = "cxxrtl", **options):
    """A driver with ``generate(board) -> Generation``: ``cxxrtl`` is the compiled model (fast),
    ``pysim`` Amaranth's own simulator (the golden reference, slow)."""
    if sim == "pysim":
        from .pysim_driver import PysimGenerator
        return PysimGenerator(**options)
    if sim == "cxxrtl":
        from .cxxrtl_driver import CxxrtlGenerator
        return CxxrtlGenerator(**options)
    raise ValueError(f"unknown simulator {sim!r}: choose from {', '.join(SIMULATORS)}")
