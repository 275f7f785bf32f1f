"""The posdata walk against the independent 10x12 mailbox generator: the same set of
pseudo-legal move words (flags included) at every node of the perft trees of the six standard
positions. Default run: every node of the perft(2) trees (the nodes at plies 0, 1 and 2);
``-m slow``: every node of the perft(3) trees (plies 0..3)."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import CAPTURE, PROMOTION, describe_move
from posdata.engine.rules.movegen import gen_caps
from posdata.engine.rules.perft import perft
from posdata.engine.rules.positions import STANDARD_POSITIONS
from tests.conftest import move_set_diff
from tests.mailbox import MAILBOX, MAILBOX64, mailbox_gen, mailbox_moves

#: positions with the rarer moves, besides the standard six
EXTRA_FENS = [
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",                # all four castlings
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "rn2k2r/8/8/8/8/8/8/R2QK1NR w KQkq - 0 1",            # castling blocked on both wings
    "1r2k3/P1P5/8/8/8/8/5p1p/2K3R1 w - - 0 1",            # promotions, with and without capture
    "1r2k3/P1P5/8/8/8/8/5p1p/2K3R1 b - - 0 1",
    "4k3/8/8/pPp5/8/8/8/4K3 w - c6 0 1",                  # en passant next to two pawns
    "4k3/8/8/8/PpP5/8/8/4K3 b - a3 0 1",
    "8/8/8/K1pP3r/8/8/8/7k w - c6 0 1",                   # en passant that exposes the king
    "7k/8/8/8/8/8/8/N6K w - - 0 1",                       # knight in the corner
]


def check_node(board: Board) -> str:
    """'' if the node agrees, else a report."""
    ours = board.moves()
    theirs = mailbox_moves(board)
    fen = board.fen()
    if len(ours) != len(set(ours)):
        return f"posdata walk emits a move twice in {fen}"
    if set(ours) != set(theirs):
        report = move_set_diff(fen, ours, theirs, "posdata", "mailbox")
        if not report:  # same UCI moves, different flags
            diff = set(ours) ^ set(theirs)
            report = f"flags differ in {fen}: " + ", ".join(describe_move(m) for m in diff)
        return report
    caps = board.moves(gen_caps)
    if caps != [m for m in ours if m & (CAPTURE | PROMOTION)]:
        return f"gen_caps is not the capture/promotion subsequence of gen in {fen}"
    return ""


def compare_tree(board: Board, depth: int) -> int:
    """Check every node down to ``depth`` plies below this one; return the nodes checked."""
    report = check_node(board)
    if report:
        pytest.fail(report)
    if depth == 0:
        return 1
    checked = 1
    for m in board.moves():
        if board.makemove(m):
            checked += compare_tree(board, depth - 1)
            board.takeback()
    return checked


def test_mailbox_layout():
    assert MAILBOX.count(-1) == 120 - 64
    assert [MAILBOX[MAILBOX64[sq]] for sq in range(64)] == list(range(64))


@pytest.mark.parametrize("pos", STANDARD_POSITIONS, ids=lambda p: p.name)
def test_same_moves_perft2_tree(pos):
    checked = compare_tree(Board(pos.fen), 2)
    assert checked == 1 + pos.counts[0] + pos.counts[1]


@pytest.mark.slow
@pytest.mark.parametrize("pos", STANDARD_POSITIONS, ids=lambda p: p.name)
def test_same_moves_perft3_tree(pos):
    checked = compare_tree(Board(pos.fen), 3)
    assert checked == 1 + sum(pos.counts[:3])


@pytest.mark.parametrize("fen", EXTRA_FENS)
def test_same_moves_special_positions(fen):
    compare_tree(Board(fen), 2)


@pytest.mark.parametrize("pos", STANDARD_POSITIONS, ids=lambda p: p.name)
def test_mailbox_perft_matches_published(pos):
    """The mailbox generator is itself right: with makemove it reproduces the published counts."""
    depth = 3 if pos.counts[2] < 100_000 else 2
    assert perft(Board(pos.fen), depth, gen=mailbox_gen) == pos.counts[depth - 1]
    assert perft(Board(pos.fen), depth, gen=mailbox_gen, bulk=True) == pos.counts[depth - 1]
