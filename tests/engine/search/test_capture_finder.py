"""The capture finder's order: exactly the forcing moves of the walk, in MVV/LVA order with the
ties the attack unit's slots give, and with the quiet stage a partition of the walk."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import (
    CAPTURE,
    EP,
    KING,
    PROMOTION,
    QUEEN,
    move_uci,
    parse_square,
)
from posdata.engine.search.capture_finder import (
    capture_stage,
    ep_victim,
    quiet_stage,
)
from posdata.engine.search.eval import PIECE_VALUE
from tests.engine.search.leaf_oracle import census_positions
from tests.hw_positions import census

FENS = census_positions(40)


def forcing(m: int) -> bool:
    """Flags alone: captures without promotion, en passant, promotions to a queen."""
    if m & PROMOTION:
        return m >> 18 == QUEEN
    return bool(m & CAPTURE)


def test_the_sample_covers_the_rare_moves():
    counts = census(list(FENS))
    assert counts["ep"] >= 5 and counts["promotion"] >= 5 and counts["castle"] >= 10
    assert counts["check"] >= 5 and counts["capture"] >= 40


@pytest.mark.parametrize("fen", FENS)
def test_stages_partition_the_walk(fen):
    board = Board(fen)
    walk = board.moves()
    stage1 = list(capture_stage(board))
    assert sorted(stage1) == sorted(m for m in walk if forcing(m)), fen
    assert len(set(stage1)) == len(stage1)
    assert quiet_stage(walk) == [m for m in walk if not forcing(m)]  # generation order


def victim_square(board, m: int) -> int:
    return ep_victim(board) if m & EP else (m >> 6) & 63


@pytest.mark.parametrize("fen", FENS)
def test_order_is_mvv_lva(fen):
    board = Board(fen)
    moves = list(capture_stage(board))
    pushes = [m for m in moves if not m & CAPTURE]
    assert moves[:len(pushes)] == pushes  # promotions by a push first ...
    assert [m & 63 for m in pushes] == sorted(m & 63 for m in pushes)  # ... by square
    captures = moves[len(pushes):]
    keys = []
    for m in captures:
        v = victim_square(board, m)
        kind = board.piece[v]
        assert kind != KING
        keys.append((-PIECE_VALUE[kind], v))
    assert keys == sorted(keys), fen  # victims by value, then square; each victim's together
    for i in range(1, len(captures)):
        if keys[i] == keys[i - 1]:  # the same victim: aggressors by value
            assert board.piece[captures[i] & 63] >= board.piece[captures[i - 1] & 63], fen


def uci_list(fen: str) -> list[str]:
    return [move_uci(m) for m in capture_stage(Board(fen))]


def test_ties_follow_the_attack_units_slots():
    """The black rook on d5 is every white piece's victim: the pawns c4 then e4 (lower file
    first), the knights in KNIGHT_STEPS order from d5 (f6 is +2+1, b6 is -2+1), the bishop, the
    rooks by ray (E h5, W a5, N d8), the queen, the king."""
    fen = "3R4/1B6/1N2KN2/R2r3R/2P1P3/3Q4/8/6k1 w - - 0 1"
    assert uci_list(fen) == ["c4d5", "e4d5", "f6d5", "b6d5", "b7d5", "h5d5", "a5d5", "d8d5",
                             "d3d5", "e6d5"]


def test_promotions_and_en_passant():
    """Pushes onto the eighth rank first (as queens, by square), then the knight taken by both
    pawns (promoting to queens), then the pawn on e5: diagonally from f4, then en passant."""
    fen = "1n6/P1P4k/8/3Pp3/5P2/8/8/4K3 w - e6 0 1"
    assert uci_list(fen) == ["a7a8q", "c7c8q", "a7b8q", "c7b8q", "f4e5", "d5e6"]
    board = Board(fen)
    assert ep_victim(board) == parse_square("e5")
    promotions = [move_uci(m) for m in quiet_stage(board.moves()) if m & PROMOTION]
    assert promotions == ["a7a8r", "a7a8b", "a7a8n", "a7b8r", "a7b8b", "a7b8n",
                          "c7c8r", "c7c8b", "c7c8n", "c7b8r", "c7b8b", "c7b8n"]
