"""The gateware as a move generator for the search and perft: ``HardwareMoveGen()`` has
engine.movegen's ``gen``/``gen_caps`` and runs the compiled CXXRTL model by default."""

from .backends import make_driver
from .driver import GatewareMoveGen


def HardwareMoveGen(sim: str = "cxxrtl") -> GatewareMoveGen:  # noqa: N802 (used like a class)
    return GatewareMoveGen(make_driver(sim))
