"""The capture finder's captures with their cursors, from engine/search/capture_finder.py: what
the capture pipeline must stream, candidate for candidate."""

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import BISHOP, EP, KING, KNIGHT, PAWN_MOVE, QUEEN, ROOK, move_uci
from posdata.engine.search.capture_finder import (
    KNIGHT_STEPS,
    RAYS,
    VICTIM_ORDER,
    aggressors,
    victims,
)
from posdata.hdl.search.finder import SLOTS


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def slot_of(board: Board, v: int, move: int) -> int:
    """The slot (``SLOTS``) a capture of the piece on ``v`` comes from, as docs/chip_search.md's
    table of slots defines them from the victim."""
    u = move & 63
    df, dr = (u & 7) - (v & 7), (u >> 3) - (v >> 3)
    if move & EP:
        return SLOTS.index(("ep", df > 0))
    if move & PAWN_MOVE:
        return SLOTS.index(("pawn", df > 0))
    piece = board.piece[u]
    if piece == KNIGHT:
        return SLOTS.index(("knight", KNIGHT_STEPS.index((df, dr))))
    if piece == KING:
        return SLOTS.index(("king", 0))
    name = {BISHOP: "bishop", ROOK: "rook", QUEEN: "queen"}[piece]
    return SLOTS.index((name, RAYS.index((_sign(df), _sign(dr)))))


def captures(board: Board) -> list[tuple[int, int, int, int]]:
    """The node's captures in the finder's order, each as (move, victim kind, victim square,
    slot + 1): the move word and its own cursor."""
    out = []
    for v in victims(board):
        kind = VICTIM_ORDER.index(board.piece[v])
        for move in aggressors(board, v):
            out.append((move, kind, v, slot_of(board, v, move) + 1))
    return out


def describe(c) -> str:
    if c is None:
        return "nothing"
    move, kind, v, slot = c
    return f"{move_uci(move)} (move {move:#x}, victim kind {kind} on {v}, cursor slot {slot})"


def first_difference(fen: str, got: list, want: list, names=("pipeline", "finder")) -> str:
    """Empty when equal; else the FEN and the first candidate where they part."""
    if got == want:
        return ""
    i = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
    g = got[i] if i < len(got) else None
    w = want[i] if i < len(want) else None
    return (f"{fen}: candidate {i} differs: {names[0]} {describe(g)}, {names[1]} {describe(w)} "
            f"({len(got)} against {len(want)} candidates)")
