"""The chip search's rules beyond alpha-beta (engine/search/leaf_search.py): the check test made
before a move, the check extension and its cap, evasions in the quiescence search, repetition and
fifty-move draws over the game's history, held to the plain negamax of
tests/engine/search/leaf_oracle.py on boards that carry a history."""

import random

import chess
import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import move_uci
from posdata.engine.search import leaf_search
from posdata.engine.search.leaf_search import (
    CONTEMPT,
    LeafSearch,
    Rules,
    clamp,
    may_give_check,
    repeats,
)
from posdata.engine.search.searcher import DRAW, INFINITY
from tests.engine.search.leaf_oracle import board_value
from tests.hw_positions import EXTRA_STARTS, random_positions

FULL = (-INFINITY, INFINITY)


def test_the_check_test_misses_no_check():
    """may_give_check may say yes to a quiet move, never no to a checking one (python-chess
    says which moves check); and it says no to most moves, or it would save nothing."""
    said_no = moves = 0
    for fen in random_positions(150, seed=38) + list(EXTRA_STARTS):
        board, oracle = Board(fen), chess.Board(fen)
        for m in board.legal_moves():
            maybe = may_give_check(board, m)
            gives = oracle.gives_check(chess.Move.from_uci(move_uci(m)))
            assert maybe or not gives, (fen, move_uci(m))
            said_no += not maybe
            moves += 1
    assert moves > 3000 and said_no > moves // 2, (said_no, moves)


def shuffled(fen: str, rng: random.Random) -> Board | None:
    """``fen`` with two reversible moves a side played and taken back (a knight, bishop, rook,
    queen or king stepping out and home), so that the position repeats the one four plies
    back; None if no such moves are found."""
    board = Board(fen)
    plan = []
    for _ in range(2):
        quiet = [m for m in board.legal_moves() if not m >> 12 and board.piece[m & 63] > 1]
        if not quiet:
            return None
        m = rng.choice(quiet)
        plan.append(m)
        board.push_uci(move_uci(m))
    for m in plan:
        back = move_uci(m)[2:4] + move_uci(m)[0:2]
        try:
            board.push_uci(back)
        except ValueError:
            return None
    # castling rights lost or an en passant chance gone: not the same position
    same = board.fen().split()[:4] == Board(fen).fen().split()[:4]
    return board if same else None


def histories(count: int, seed: int) -> list[Board]:
    rng = random.Random(seed)
    out = []
    for fen in random_positions(4 * count, seed=seed):
        board = shuffled(fen, rng)
        if board is not None:
            out.append(board)
        if len(out) == count:
            break
    return out


def test_a_repeated_position_is_seen():
    """After the shuffle the position repeats the one four plies back; the search's root is
    never a draw, but the same position below the root is."""
    boards = histories(20, seed=7)
    assert len(boards) == 20
    for board in boards:
        assert repeats(board) == (True, 2), board.fen()
        entered = LeafSearch(board)
        result = entered.run(*FULL, 1, ply=0)
        assert result.stats.draws == 0  # the root
        # at an odd ply the side to move is the root's opponent: it gains the contempt
        result = LeafSearch(board).run(-100, 100, 1, ply=1)
        assert (result.score, result.nodes, result.stats.draws) == (CONTEMPT, 1, 1)
        result = LeafSearch(board).run(-100, 100, 1, ply=2)
        assert (result.score, result.nodes) == (-CONTEMPT, 1)
        result = LeafSearch(board, rules=Rules(contempt=0)).run(-100, 100, 1, ply=2)
        assert result.score == DRAW


def test_positions_before_an_irreversible_move_are_not_compared():
    board = Board()
    for word in ("g1f3", "g8f6", "f3g1", "f6g8"):
        board.push_uci(word)
    assert repeats(board)[0]
    board.fifty = 3  # as if the first knight move had been a capture
    assert repeats(board) == (False, 1)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_the_reference_equals_the_plain_negamax_over_a_history(depth):
    """Boards with a shuffle in their history (repetitions reachable two plies down and more):
    the reference's score is the plain negamax's, whatever the window."""
    compared = draws = 0
    rng = random.Random(depth)
    for board in histories(40, seed=11):
        value = board_value(board, depth, ply=1, budget=4000)
        if value is None:
            continue
        compared += 1
        for window in (FULL, (value - 1, value), (value, value + 1),
                       (value - rng.randint(2, 200), value + rng.randint(2, 200))):
            result = LeafSearch(board).run(*window, depth, ply=1)
            assert result.score == clamp(value, *window), (board.fen(), depth, window)
        draws += result.stats.draws
    assert compared >= 15 and draws >= 5, (compared, draws)


def test_the_fifty_move_rule():
    """A full-width node below the root with the counter at 100 is a draw; at 99 it is not."""
    fen = "4k3/8/8/8/8/8/8/R3K3 w - - {} 80"
    for fifty, drawn in ((100, True), (99, False)):
        board = Board(fen.format(fifty))
        result = LeafSearch(board).run(*FULL, 1, ply=1)
        assert (result.score == CONTEMPT) == drawn and (result.nodes == 1) == drawn, fifty
    # never the root: at the root with the counter at 100, its children (101) are the draws
    board = Board(fen.format(100))
    stats = LeafSearch(board).run(*FULL, 2, ply=0).stats
    assert stats.draws == len(board.legal_moves()) == stats.full - 1


#: positions with long checking lines for both sides
CHECKING = (
    "6k1/5ppp/8/8/8/8/5PPP/Q5K1 w - - 0 1",
    "3q2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1",
    "r5k1/5ppp/8/8/8/8/5PPP/R5K1 b - - 0 1",
    "k7/8/1Q6/8/8/8/6q1/K7 w - - 0 1",
)


@pytest.mark.parametrize("cap", [0, 1, 2])
def test_the_extension_cap(cap, monkeypatch):
    """With MAX_EXTENSIONS lowered the reference (given the same cap) still equals the plain
    negamax that obeys it, and never extends a line more than ``cap`` times."""
    monkeypatch.setattr(leaf_search, "MAX_EXTENSIONS", cap)
    rules = Rules(max_extensions=cap)
    compared = 0
    for fen in CHECKING:
        board = Board(fen)
        value = board_value(board, 2, budget=20_000)
        if value is None:
            continue
        compared += 1
        result = LeafSearch(board, rules=rules).run(*FULL, 2)
        assert result.score == value, (fen, cap)
        assert (result.stats.extended > 0) == (cap > 0), (fen, cap)
    assert compared >= 3


@pytest.mark.parametrize("plies", [0, 3])
def test_evasions_in_the_quiescence_search(plies, monkeypatch):
    """With QS_CHECK_PLIES changed the reference (given the same) still equals the plain
    negamax that obeys it."""
    monkeypatch.setattr(leaf_search, "QS_CHECK_PLIES", plies)
    rules = Rules(qs_check_plies=plies)
    compared = evasions = 0
    for fen in random_positions(24, seed=5) + list(CHECKING):
        board = Board(fen)
        for depth in (0, 1):
            value = board_value(board, depth, budget=3000)
            if value is None:
                continue
            compared += 1
            result = LeafSearch(board, rules=rules).run(*FULL, depth)
            assert result.score == value, (fen, depth, plies)
            evasions += result.stats.evasion
    assert compared >= 20
    # at the frontier (below 0) a side in check is extended instead, while extensions last
    assert evasions == 0 if plies == 0 else plies == 1 or evasions > 0, evasions
