"""The match's SAN and PGN (engine.rules.san, engine.match.pgn) against python-chess: the SAN of
every legal move of random and crafted positions, and whole games written as PGN, read back by
chess.pgn: moves, tags, comments and result."""

import io
import random

import pytest

from posdata.engine.match.book import Opening
from posdata.engine.match.game import GameRecord, record_move
from posdata.engine.match.judge import Judge
from posdata.engine.match.pgn import LINE, game_pgn, match_pgn, tag
from posdata.engine.rules.board import Board
from posdata.engine.rules.san import san, suffix

chess = pytest.importorskip("chess")
pytest.importorskip("chess.pgn")  # chess.pgn, below

#: positions where SAN has work to do: disambiguation by file, rank and both, promotions with
#: and without capture, en passant, both castlings, checks and mates
CRAFTED = [
    "7k/8/8/3Q1Q2/8/3Q1Q2/8/K7 w - - 0 1",
    "k7/8/8/1N3N2/8/1N6/8/K7 w - - 0 1",
    "1k6/8/8/8/R6R/8/8/K6R w - - 0 1",
    "1r2k2r/2P5/8/8/8/8/8/R3K2R w KQk - 0 1",
    "r3k2r/8/8/8/3pP3/8/8/R3K2R b KQkq e3 0 1",
    "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
]


def sans(board: Board) -> dict[str, str]:
    """Every legal move of ``board``: UCI -> our SAN with its suffix."""
    legal = board.legal_moves()
    out = {}
    for m in legal:
        text = san(board, m, legal)
        board.makemove(m)
        text += suffix(board, board.legal_moves())
        board.takeback()
        out[board.uci(m)] = text
    return out


def theirs(board: "chess.Board") -> dict[str, str]:
    return {m.uci(): board.san(m) for m in board.legal_moves}


@pytest.mark.parametrize("fen", CRAFTED)
def test_san_of_crafted_positions(fen):
    assert sans(Board(fen)) == theirs(chess.Board(fen))


def test_san_along_random_games():
    rng = random.Random(3)
    positions = 0
    for game in range(4):
        ours, board = Board(), chess.Board()
        while not board.is_game_over() and board.ply() < 120:
            assert sans(ours) == theirs(board), board.fen()
            positions += 1
            m = rng.choice(list(board.legal_moves))
            ours.push_uci(m.uci())
            board.push(m)
    assert positions > 400


def record_of(moves: list[str], fen: str | None = None, book: int = 2, index: int = 0,
              result: str = "1/2-1/2", reason: str = "ply cap") -> GameRecord:
    """A game record of ``moves`` (the first ``book`` from the book), each engine move with a
    comment."""
    opening = Opening("Test line", tuple(moves[:book]), fen)
    record = GameRecord(index, opening, "engine A", "engine B", result, reason,
                        start_fen=fen, started="2026.11.27")
    judge = Judge(opening.board(), 1000)
    for i, word in enumerate(moves):
        comment = None if i < book else f"+0.{i:02d}/3 0.{i:02d}s"
        record_move(record, judge, judge.board.parse_uci(word), comment)
    record.book_plies = book
    return record


def read_back(text: str) -> "chess.pgn.Game":
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors, game.errors if game else text
    return game


def test_a_game_reads_back_in_python_chess():
    rng = random.Random(5)
    board = chess.Board()
    for _ in range(70):
        if board.is_game_over():
            break
        board.push(rng.choice(list(board.legal_moves)))
    moves = [m.uci() for m in board.move_stack]
    text = game_pgn(record_of(moves, index=6), site="here")
    assert all(len(line) <= LINE for line in text.splitlines())
    game = read_back(text)
    assert [m.uci() for m in game.mainline_moves()] == moves
    h = game.headers
    assert list(h)[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
    assert (h["Site"], h["Date"], h["Round"], h["White"], h["Black"], h["Result"]) == (
        "here", "2026.11.27", "7", "engine A", "engine B", "1/2-1/2")
    assert (h["Termination"], h["PlyCount"], h["Opening"]) == ("adjudication", str(len(moves)),
                                                               "Test line")
    assert "FEN" not in h and game.end().comment == "+0.69/3 0.69s ply cap: a draw on material"
    nodes = list(game.mainline())
    assert [n.comment for n in nodes[:2]] == ["", ""]  # the book's moves have none
    assert nodes[2].comment == "+0.02/3 0.02s"


def test_a_game_from_a_position_with_black_to_move():
    fen = "r3k2r/8/8/8/3pP3/8/8/R3K2R b KQkq e3 0 17"
    moves = ["d4e3", "e1g1", "e8c8", "a1a8"]
    record = record_of(moves, fen, book=1, result="1-0", reason="illegal move")
    record.detail = "engine B played 'a1a1'"
    text = game_pgn(record)
    assert "17... dxe3" in text and "18. O-O" in text
    game = read_back(text)
    assert game.headers["FEN"] == fen and game.headers["SetUp"] == "1"
    assert game.headers["Termination"] == "illegal move"
    assert [m.uci() for m in game.mainline_moves()] == moves
    assert game.end().board().is_checkmate() is False
    # the last move's comment, then the ending's (python-chess joins the two)
    assert game.end().comment == "+0.03/3 0.03s illegal move: engine B played 'a1a1'"


def test_tags_are_escaped():
    """PGN's export format: a quote or backslash in a tag's value is escaped with a backslash
    (python-chess reads the value as written, unescaped), and a control character is a space."""
    assert tag("White", 'B "the second" \\ x\ty') == '[White "B \\"the second\\" \\\\ x y"]'


def test_a_match_reads_back_game_by_game_in_round_order():
    records = [record_of(["e2e4", "e7e5", "g1f3"], index=1, result="0-1", reason="stalled"),
               record_of(["d2d4", "d7d5", "c2c4", "e7e6"], index=0, result="1-0",
                         reason="checkmate")]
    stream = io.StringIO(match_pgn(records))
    games = [chess.pgn.read_game(stream) for _ in range(3)]
    assert games[2] is None
    assert [g.headers["Round"] for g in games[:2]] == ["1", "2"]
    assert [g.headers["Result"] for g in games[:2]] == ["1-0", "0-1"]
    assert [g.headers["Termination"] for g in games[:2]] == ["normal", "stalled connection"]
