"""The move generators the search and the UCI engine can run on, by name: ``sw`` is the
reference posdata walk in Python, ``hw`` the compiled model of the gateware. The engine itself
knows only its own generator; ``posdata search`` and ``posdata uci`` hand it these."""

from posdata.engine import movegen as reference
from posdata.engine.search import MoveGenUnavailable


def _gateware():
    from .backends import make_driver
    from .driver import GatewareMoveGen
    try:
        return GatewareMoveGen(make_driver("cxxrtl"))
    except RuntimeError as e:  # e.g. no C++ compiler for the compiled model
        raise MoveGenUnavailable(f"hardware move generator unavailable: {e}") from None


#: name -> factory; the first is the default
MOVEGENS = {"sw": lambda: reference, "hw": _gateware}


def make_movegen(name: str):
    if name not in MOVEGENS:
        raise MoveGenUnavailable(f"unknown move generator {name!r} (choose one of: "
                                 f"{', '.join(MOVEGENS)})")
    return MOVEGENS[name]()
