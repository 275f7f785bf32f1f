"""The search: mates found with the right mate score, legal best moves everywhere, draws, limits,
and the promise the hardware relies on: the tree depends only on what the generator emits."""

import json
import random
import subprocess
import sys
import threading

import chess
import pytest

from posdata.engine.rules import movegen as reference_movegen
from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import START_FEN, move_uci
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.engine.search.eval import evaluate
from posdata.engine.search.searcher import (
    MATE,
    Limits,
    MoveGenUnavailable,
    Searcher,
    mate_in,
    uci_score,
)
from posdata.sim.cli import main as cli_main
from tests.hang_guard import guarded

# Mates checked against a brute-force python-chess solver (no shorter mate exists), from both
# sides: the black versions are the colour-flipped positions.
MATE_IN_1 = [
    "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",  # back rank
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",  # scholar's mate
    "rnb1k1nr/pppp1ppp/8/2b1p3/4P2q/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4",
]
MATE_IN_2 = [
    "k7/8/2K5/8/8/8/8/7R w - - 0 1",
    "2BK3k/8/8/8/P2P4/4Q3/8/8 w - - 0 1",
    "8/8/2p5/B7/6p1/1K1R4/8/2k5 w - - 0 1",
    "8/4r2q/2P5/8/5k2/8/5P1P/5K2 b - - 0 1",
    "3K4/8/8/4r3/p4k2/8/p1q5/8 b - - 0 1",  # wins by promoting first
]
MATE_IN_3 = [
    "8/6PK/8/5N2/7p/7R/8/1k6 w - - 0 1",  # promotes, then mates
]
MATE_IN_3_SLOW = [
    "1K6/8/7r/7P/5n2/8/6pk/8 b - - 0 1",
    "6K1/1k6/6P1/2R5/8/8/7R/8 w - - 0 1",
    "8/2p5/8/5N2/7K/8/7k/3Q4 w - - 0 1",
]


def check_mate(fen: str, n: int) -> None:
    board = Board(fen)
    result = Searcher().think(board, Limits(depth=2 * n - 1))
    assert result.score == MATE - (2 * n - 1), (fen, uci_score(result.score))
    assert mate_in(result.score) == n
    assert uci_score(result.score) == f"mate {n}"
    # The PV is the mate itself: play it with python-chess, which must agree it mates.
    oracle = chess.Board(fen)
    assert len(result.pv) == 2 * n - 1, [move_uci(m) for m in result.pv]
    for m in result.pv:
        move = chess.Move.from_uci(move_uci(m))
        assert move in oracle.legal_moves, (fen, move_uci(m))
        oracle.push(move)
    assert oracle.is_checkmate(), (fen, oracle.fen())
    assert board.fen() == fen  # the search leaves the board as it found it


@pytest.mark.parametrize("fen", MATE_IN_1)
def test_mate_in_1(fen):
    check_mate(fen, 1)


@pytest.mark.parametrize("fen", MATE_IN_2)
def test_mate_in_2(fen):
    check_mate(fen, 2)


@pytest.mark.parametrize("fen", MATE_IN_3)
def test_mate_in_3(fen):
    check_mate(fen, 3)


@pytest.mark.slow
@pytest.mark.parametrize("fen", MATE_IN_3_SLOW)
def test_mate_in_3_more(fen):
    check_mate(fen, 3)


def test_getting_mated_is_scored_from_the_losing_side():
    # Black's only move, Kh7, walks into Qg7 mate.
    result = Searcher().think(Board("7k/8/5K2/8/8/8/8/6Q1 b - - 0 1"), Limits(depth=4))
    assert result.score == -(MATE - 2) and mate_in(result.score) == -1
    assert uci_score(result.score) == "mate -1"


@pytest.mark.parametrize("fen, score", [
    ("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1", -MATE),  # checkmated
    ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 0),  # stalemate
])
def test_no_legal_move(fen, score):
    board = Board(fen)
    result = Searcher().think(board, Limits(depth=3))
    assert result.best_move is None and result.pv == [] and result.score == score


def test_only_move():
    fen = "k7/8/K7/8/8/8/8/7R b - - 0 1"
    assert [m.uci() for m in chess.Board(fen).legal_moves] == ["a8b8"]
    result = Searcher().think(Board(fen), Limits(depth=3))
    assert move_uci(result.best_move) == "a8b8"


def test_fifty_move_rule():
    # White is a queen up, but every white move is a quiet piece move: at fifty = 99 each one
    # ends the game drawn, unless it mates (none does here).
    won = Searcher().think(Board("k7/8/8/8/8/8/8/KQ6 w - - 0 80"), Limits(depth=3))
    drawn = Searcher().think(Board("k7/8/8/8/8/8/8/KQ6 w - - 99 80"), Limits(depth=3))
    assert won.score > 500
    assert drawn.score == 0


def test_repetition_is_seen_through_the_game_history():
    board = Board()
    for text in ("g1f3", "g8f6", "f3g1"):
        board.push_uci(text)
    searcher = Searcher()
    searcher.board = board
    assert not searcher._repetition()
    board.push_uci("f6g8")  # the initial position again, white to move
    assert searcher._repetition()
    board.push_uci("e2e4")  # a pawn move: nothing before it can repeat
    assert not searcher._repetition()


PERPETUAL = "6k1/6p1/8/8/8/2K5/qr6/r3Q3 w - - 0 1"  # Qe8+ Kh7 Qh5+ Kg8 Qe8+ ...


def test_perpetual_check_is_a_draw():
    result = Searcher().think(Board(PERPETUAL), Limits(depth=4))
    assert result.score == 0
    assert [move_uci(m) for m in result.pv[:4]] == ["e1e8", "g8h7", "e8h5", "h7g8"]


def test_perpetual_needs_the_repetition_rule(monkeypatch):
    # The same search blind to repetitions sees only black's extra rooks.
    monkeypatch.setattr(Searcher, "_repetition", lambda self: False)
    result = Searcher().think(Board(PERPETUAL), Limits(depth=4))
    assert result.score < -500


def random_positions(n: int, seed: int) -> list[str]:
    """Positions from seeded random games (so they include castling, en passant, promotions
    and checks), none of them over."""
    rng = random.Random(seed)
    fens = []
    while len(fens) < n:
        board = chess.Board()
        for _ in range(rng.randrange(4, 90)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            fens.append(board.fen())
    return fens


@pytest.mark.parametrize("fen", random_positions(24, seed=2024))
def test_random_positions_give_a_legal_best_move(fen):
    legal = {m.uci() for m in chess.Board(fen).legal_moves}
    board = Board(fen)
    hash_before, hist_before = board.hash, len(board.hist)
    for limits in (Limits(depth=2), Limits(nodes=40), Limits(nodes=1)):
        result = Searcher().think(board, limits)
        assert move_uci(result.best_move) in legal, (fen, limits)
        assert all(move_uci(m) for m in result.pv)
        assert board.fen() == fen and board.hash == hash_before
        assert len(board.hist) == hist_before and board.ply == 0


def test_pv_is_legal_line():
    for fen in random_positions(6, seed=7):
        result = Searcher().think(Board(fen), Limits(depth=3))
        oracle = chess.Board(fen)
        for m in result.pv:
            move = chess.Move.from_uci(move_uci(m))
            assert move in oracle.legal_moves, (fen, [move_uci(x) for x in result.pv])
            oracle.push(move)


def test_node_limit_is_exact_and_stops():
    result = Searcher().think(Board(), Limits(depth=30, nodes=500))
    assert result.stopped and result.nodes == 500
    assert move_uci(result.best_move) in {m.uci() for m in chess.Board().legal_moves}


def test_time_limit():
    searcher = Searcher()
    # a hang guard: idle the search takes its 0.2 s and ~5 ms more
    result = guarded(lambda: searcher.think(Board(STANDARD_POSITIONS[1].fen), Limits(time_ms=200)),
                     10, "a search on a 200 ms deadline", on_hang=searcher.stop)
    # Stopped: the deadline cut an iteration short (the only limit). By its own clock the search
    # took its time, and overran it by the few ms between looks at the clock (every 256 nodes;
    # as few under load: the clock is the wall's); the bound, ten times the quiet 0.2 s, catches
    # a clock looked at far too rarely.
    assert result.stopped and 0.2 <= result.seconds < 2.0, result.seconds
    assert result.depth >= 1


def test_stop_from_another_thread():
    searcher = Searcher()
    board = Board()
    threading.Timer(0.2, searcher.stop).start()
    results = []
    thinker = threading.Thread(target=lambda: results.append(
        searcher.think(board, Limits(infinite=True))), daemon=True)
    thinker.start()
    # the stop is seen at the next node, milliseconds after it: a hang guard, not a timing
    thinker.join(30)
    assert results, "an infinite search did not stop"
    result = results[0]
    assert result.stopped and board.fen() == START_FEN
    assert move_uci(result.best_move) in {m.uci() for m in chess.Board().legal_moves}


def test_stopped_before_it_starts_still_moves():
    searcher = Searcher()
    searcher.stop()
    result = searcher.think(Board(), Limits(depth=5))
    # the first iteration always completes: the move played has been searched
    assert result.stopped and result.depth == 1 and result.best_move == result.pv[0]
    assert result.nodes <= result.iterations[0].nodes + 1  # the node where the stop is seen
    assert move_uci(result.best_move) in {m.uci() for m in chess.Board().legal_moves}


def test_root_moves_restrict_the_search():
    board = Board()
    only = board.parse_uci("a2a3")
    result = Searcher().think(board, Limits(depth=2, root_moves=frozenset([only])))
    assert result.best_move == only


# --- the generator is a parameter ------------------------------------------------------------

class WrappedGen:
    """A stand-in for the hardware generator: a separate object whose two methods produce the
    moves through the reference functions (optionally transformed), counting its calls."""

    def __init__(self, transform=None):
        self.calls = 0
        self.transform = transform

    def _fill(self, fn, board):
        self.calls += 1
        fn(board)
        if self.transform:
            ply = board.ply
            first, last = board.first_move[ply], board.first_move[ply + 1]
            board.gen_dat[first:last] = self.transform(board.gen_dat[first:last])

    def gen(self, board):
        self._fill(reference_movegen.gen, board)

    def gen_caps(self, board):
        self._fill(reference_movegen.gen_caps, board)


def run_search(fen, depth, movegen):
    board = Board(fen)
    result = Searcher(movegen).think(board, Limits(depth=depth))
    return result.nodes, result.score, [move_uci(m) for m in result.pv], \
        [(it.depth, it.nodes, it.score, tuple(it.pv)) for it in result.iterations]


#: (position, depth) pairs cheap enough for every run; the slow test goes to depth 4 on all
SAME_TREE_CASES = [(p, 2) for p in STANDARD_POSITIONS] + \
    [(p, 3) for p in STANDARD_POSITIONS if p.name in ("initial", "position3", "position5")]


@pytest.mark.parametrize("pos, depth", SAME_TREE_CASES,
                         ids=[f"{p.name}-d{d}" for p, d in SAME_TREE_CASES])
def test_same_moves_same_tree(pos, depth):
    wrapped = WrappedGen()
    assert run_search(pos.fen, depth, reference_movegen) == run_search(pos.fen, depth, wrapped)
    assert wrapped.calls > 0


@pytest.mark.slow
@pytest.mark.parametrize("pos", STANDARD_POSITIONS, ids=lambda p: p.name)
def test_same_moves_same_tree_deeper(pos):
    assert run_search(pos.fen, 4, reference_movegen) == run_search(pos.fen, 4, WrappedGen())


def test_move_order_changes_the_tree():
    # The comparison above can fail: a generator that emits the same moves in another order
    # walks a different tree.
    fen = STANDARD_POSITIONS[0].fen
    reversed_gen = WrappedGen(lambda moves: moves[::-1])
    assert run_search(fen, 3, reference_movegen)[0] != run_search(fen, 3, reversed_gen)[0]


def test_make_movegen():
    from posdata.sim.drivers.movegens import make_movegen
    assert make_movegen("sw") is reference_movegen
    with pytest.raises(MoveGenUnavailable, match="unknown move generator"):
        make_movegen("gpu")


def test_engine_does_not_import_amaranth():
    code = ("import sys, posdata.engine.search.searcher, posdata.engine.uci.protocol, "
            "posdata.engine.search.eval; "
            "bad = [m for m in sys.modules if m.split('.')[0] == 'amaranth' "
            "or m.split('.')[:2] in (['posdata', 'hdl'], ['posdata', 'sim'])]; "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)  # a hang guard: idle ~0.1 s
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --- evaluation ------------------------------------------------------------------------------

def test_evaluation_is_colour_symmetric():
    assert evaluate(Board()) == 0
    for fen in random_positions(40, seed=11):
        flipped = chess.Board(fen).mirror().fen()
        assert evaluate(Board(fen)) == evaluate(Board(flipped)), fen


def test_evaluation_sees_material():
    assert evaluate(Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")) > 800
    assert evaluate(Board("4k3/8/8/8/8/8/8/3QK3 b - - 0 1")) < -800


# --- posdata search --------------------------------------------------------------------------

def test_cli_search_json(capsys):
    assert cli_main(["search", "--fen", MATE_IN_2[0], "--depth", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["score"] == {"mate": 2} and out["movegen"] == "sw"
    assert out["bestmove"] == out["pv"][0] and out["depth"] == 3
    assert [it["depth"] for it in out["iterations"]] == [1, 2, 3]


def test_cli_search_text(capsys):
    assert cli_main(["search", "--moves", "e2e4", "e7e5", "--depth", "2"]) == 0
    out = capsys.readouterr().out
    assert "bestmove " in out
    best = out.split("bestmove ")[1].split()[0]
    oracle = chess.Board()
    oracle.push_uci("e2e4")
    oracle.push_uci("e7e5")
    assert chess.Move.from_uci(best) in oracle.legal_moves


def test_cli_search_no_legal_move(capsys):
    assert cli_main(["search", "--fen", "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1", "--depth", "2"]) == 0
    assert "checkmate" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["search"], "one of the arguments --depth --movetime is required"),
    (["search", "--depth", "0"], "--depth must be between"),
    (["search", "--depth", "x"], "--depth must be an integer"),
    (["search", "--depth", "2", "--movetime", "5"], "not allowed with"),
    (["search", "--fen", "8/8/8 w - - 0 1", "--depth", "2"], "bad FEN"),
    (["search", "--moves", "e2e5", "--depth", "2"], "illegal or unknown move"),
    (["search", "--depth", "2", "--movegen", "fpga"], "invalid choice"),
])
def test_cli_search_bad_input(capsys, argv, message):
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
