"""Choosing a gateware simulator by name. Imports happen here, on demand, so that software-only
commands never import amaranth."""

SIMULATORS = ("pysim",)


def make_driver(sim: str = "pysim", **options):
    """A driver with ``generate(board) -> Generation``: ``pysim`` is Amaranth's simulator."""
    if sim == "pysim":
        from .pysim_driver import PysimGenerator
        return PysimGenerator(**options)
    raise ValueError(f"unknown simulator {sim!r}: choose from {', '.join(SIMULATORS)}")
