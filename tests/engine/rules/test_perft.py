"""perft against the published node counts of the six standard positions.

Ref: Chess Programming Wiki, "Perft Results" (``engine.rules.positions``). The default run goes to
depths of at most ~200k nodes per position; ``-m slow`` (``make perft-deep``) goes deeper.
On a mismatch the failure shows divide (per root move) so the first wrong move can be chased
with python-chess (tests/engine/rules/test_oracle.py does that position by position).
"""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import move_uci
from posdata.engine.rules.perft import divide, perft
from posdata.engine.rules.positions import BY_NAME, STANDARD_POSITIONS

#: (position, depth) pairs of the default run: ~0.5 M nodes in all
FAST = [("initial", 1), ("initial", 2), ("initial", 3), ("initial", 4),
        ("kiwipete", 1), ("kiwipete", 2), ("kiwipete", 3),
        ("position3", 1), ("position3", 2), ("position3", 3), ("position3", 4),
        ("position4", 1), ("position4", 2), ("position4", 3),
        ("position5", 1), ("position5", 2), ("position5", 3),
        ("position6", 1), ("position6", 2), ("position6", 3)]
#: the deeper sweep: initial position depth 5, the others depth 4 (position 3 depth 5)
DEEP = [("initial", 5), ("kiwipete", 4), ("position3", 5), ("position4", 4),
        ("position5", 4), ("position6", 4)]


def snapshot(board: Board):
    return (board.fen(), board.hash, board.ply, list(board.color), list(board.piece),
            list(board.king), len(board.hist))


def check_count(name: str, depth: int, bulk: bool) -> None:
    pos = BY_NAME[name]
    board = Board(pos.fen)
    before = snapshot(board)
    nodes = perft(board, depth, bulk=bulk)
    assert snapshot(board) == before, "perft left the board changed"
    want = pos.counts[depth - 1]
    if nodes != want:
        per_move = {move_uci(m): n for m, n in divide(board, depth, bulk=bulk).items()}
        pytest.fail(f"{name} ({pos.fen}) depth {depth}: {nodes} nodes, published {want}\n"
                    f"divide: {per_move}")


@pytest.mark.parametrize("name, depth", FAST)
def test_published_counts(name, depth):
    check_count(name, depth, bulk=False)


@pytest.mark.parametrize("name, depth", FAST)
def test_published_counts_bulk(name, depth):
    check_count(name, depth, bulk=True)


@pytest.mark.slow
@pytest.mark.parametrize("name, depth", DEEP)
def test_published_counts_deep(name, depth):
    check_count(name, depth, bulk=False)


@pytest.mark.slow
@pytest.mark.parametrize("name, depth", DEEP)
def test_published_counts_deep_bulk(name, depth):
    check_count(name, depth, bulk=True)


def test_depth_zero_is_one_node():
    assert perft(Board(), 0) == 1
    assert perft(Board(), 0, bulk=True) == 1


@pytest.mark.parametrize("pos", STANDARD_POSITIONS, ids=lambda p: p.name)
def test_divide_sums_to_perft_and_lists_the_legal_root_moves(pos):
    board = Board(pos.fen)
    counts = divide(board, 2)
    assert sum(counts.values()) == pos.counts[1]
    assert len(counts) == pos.counts[0]
    assert list(counts) == board.legal_moves()  # generation order, legal moves only
    assert divide(board, 2, bulk=True) == counts


def test_perft_accepts_a_generator():
    """The gateware driver plugs in through ``gen=``: a generator that emits nothing gives 0."""
    def no_moves(board):
        board.first_move[board.ply + 1] = board.first_move[board.ply]
    assert perft(Board(), 3, gen=no_moves) == 0
    assert perft(Board(), 3, gen=no_moves, bulk=True) == 0
