"""The move generators the search and the UCI engine can run on, by name: ``sw`` is the
reference posdata walk in Python, ``hw`` the gateware on a sim.drivers.targets target (the compiled
model by default; ``--target`` picks another). The engine itself knows only its own generator;
``posdata search`` and ``posdata uci`` hand it these."""

from posdata.engine.rules import movegen as reference
from posdata.engine.search.searcher import MoveGenUnavailable


def _gateware(target="cxxrtl"):
    from .fpga_board import BoardError
    from .interface import GatewareMoveGen
    from .targets import make_driver
    try:
        return GatewareMoveGen(make_driver(target))
    except (RuntimeError, OSError, BoardError) as e:  # no C++ compiler, no board on the port
        raise MoveGenUnavailable(f"hardware move generator unavailable: {e}") from None


#: name -> factory; the first is the default
MOVEGENS = {"sw": lambda: reference, "hw": _gateware}


def movegens_on(target="cxxrtl") -> dict:
    """MOVEGENS with ``hw`` on ``target`` (a sim.drivers.targets.Target or its name)."""
    return {"sw": MOVEGENS["sw"], "hw": lambda: _gateware(target)}


def make_movegen(name: str, target="cxxrtl"):
    if name not in MOVEGENS:
        raise MoveGenUnavailable(f"unknown move generator {name!r} (choose one of: "
                                 f"{', '.join(MOVEGENS)})")
    return movegens_on(target)[name]()
