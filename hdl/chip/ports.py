"""The perft chip's control interfaces, declared once: the thread, the engine and the chip each
take them (flipped), and each layer hands them on to the next.

* ``root_load``: the root position: its board one square a clock (while idle), its side to move,
  castling rights and en passant square (latched at a count's start), and for Chess960 each
  right's castling squares and rook file (held through a count).
* ``CountControl``: a count: start, its depth, bulk or plain, the split ply; and abort.
* ``Listing``: the root's moves listed while idle: ``start`` alone streams them pseudo-legal in
  generation order (promotions expanded), as the move generator does; with ``legal`` the legal
  ones (from, to and the promoted piece; no other flags); ``cycles``: the generator's clocks.

Directions are the driver's (the front end's).
"""

from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.variants import get_variant

from ..common.contract import DEPTH_BITS, ORTHODOX_CASTLING, ORTHODOX_ROOKS, ROOK_FILE_BITS
from ..common.layouts import Castling, MoveLayout
from .chessboard import SquareWrite
from .modes import chip_geometry, root_layout


def root_position(variant, geometry=None) -> wiring.Signature:
    """The root's side, rights and en passant square (at a geometry with modes its victim too:
    ``hdl.chip.modes.root_layout``); Chess960's castling squares too."""
    members = {"root": Out(root_layout(geometry or chip_geometry(variant)))}
    if get_variant(variant).chess960:
        members["castling"] = Out(Castling, init=ORTHODOX_CASTLING)
        members["rooks"] = Out(data.ArrayLayout(ROOK_FILE_BITS, 4), init=ORTHODOX_ROOKS)
    return wiring.Signature(members)


def root_load(variant, geometry=None) -> wiring.Signature:
    return wiring.Signature({"write": Out(SquareWrite),
                             "position": Out(root_position(variant, geometry))})


CountControl = wiring.Signature({
    "start": Out(1), "depth": Out(DEPTH_BITS), "bulk": Out(1), "split": Out(DEPTH_BITS),
    "abort": Out(1),
})

Listing = wiring.Signature({
    "start": Out(1), "legal": Out(1),
    "moves": In(stream.Signature(MoveLayout)), "cycles": In(32),
})
