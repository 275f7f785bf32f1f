"""What the host packs for the chip (hdl.common.contract) is what the gateware reads: the root's
word against the gateware's Position layout, square codes within their width for every variant,
and the split rule."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import NO_SQUARE, Color
from posdata.engine.rules.variants import VARIANTS
from posdata.hdl.common import contract
from posdata.hdl.common.layouts import PIECE, SQUARE, Position
from tests.hw_positions import random_positions


def gateware_root(board) -> int:
    """The root as the gateware's layout packs it (the oracle for position_word)."""
    value = Position.const({"side": board.side, "castle": board.castle,
                            "ep_valid": int(board.ep != NO_SQUARE), "ep_sq": max(board.ep, 0)})
    return value.as_value().value


def test_position_word_is_the_gateware_layout():
    fens = random_positions(80, seed=11)
    boards = [Board(fen) for fen in fens]
    assert any(b.ep != NO_SQUARE for b in boards) and any(b.side for b in boards)
    assert len({b.castle for b in boards}) > 4  # rights in several combinations
    for board, fen in zip(boards, fens):
        assert contract.position_word(board) == gateware_root(board), fen
    assert [name for name, _ in contract.POSITION_FIELDS] == list(Position._fields)
    assert sum(bits for _, bits in contract.POSITION_FIELDS) == Position.size


def test_square_codes_fit_the_gateware():
    assert max(Color) < 1 << contract.COLOR_BITS
    assert contract.PIECE_BITS == PIECE.width and contract.SQUARE_BITS == SQUARE.width
    assert contract.CODE_BITS == contract.COLOR_BITS + PIECE.width
    for variant in VARIANTS:
        codes = contract.valid_square_codes(variant)
        assert max(codes) < 1 << contract.CODE_BITS, variant.name
        board = Board(None, variant)
        packed = contract.square_codes(board)
        assert len(packed) == contract.SQUARES and set(packed) <= codes, variant.name
        # the compiled chip's entry unpacks them so
        assert [(c & (1 << contract.COLOR_BITS) - 1, c >> contract.COLOR_BITS)
                for c in packed] == list(zip(board.color, board.piece)), variant.name


@pytest.mark.parametrize("depth", range(contract.MAX_DEPTH + 1))
def test_one_split_rule(depth):
    split = contract.default_split(depth)
    assert split == (0 if depth <= 1 else min(depth - 1, contract.DEFAULT_SPLIT))
    assert contract.split_in_range(depth, split) and not contract.split_in_range(depth, -1)
    assert not contract.split_in_range(depth, max(1, depth))


def test_split_rule_values():
    # the initial position has 400 nodes at ply 2: enough to share among the threads
    assert [contract.default_split(d) for d in range(6)] == [0, 0, 1, 2, 2, 2]
