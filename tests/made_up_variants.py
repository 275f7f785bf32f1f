"""Variants no list names, for the tests that hold engine.rules.capabilities' computed rules (and
the gateware's own checks) to what a new variant would get."""

import dataclasses

from posdata.engine.rules.defs import BISHOP, KNIGHT
from posdata.engine.rules.variants import CHESS, PieceType


def made_up(name: str, moves: dict):
    """Chess with some pieces' moves replaced (code -> definition)."""
    pieces = tuple(PieceType(p.code, p.letter, f"{name} piece", moves[p.code], 300)
                   if p.code in moves else p for p in CHESS.pieces)
    return dataclasses.replace(CHESS, name=name, pieces=pieces)


#: two pieces that move by colour: Black's walks need two tables, one is free
FORWARD = made_up("forward", {KNIGHT: "fN", BISHOP: "FfW"})
#: a dabbaba rider: a plain piece the perft chip's legality unit has no plane for
DABBABA = made_up("dabbaba", {BISHOP: "DD"})
#: a non-royal piece with the king's steps
COMMONER = made_up("commoner", {KNIGHT: "K"})
