"""FEN in and out: round trips, EPD, and one test per kind of bad input (engine level; the CLI's
handling of the same inputs is in test_cli.py)."""

import random

import chess
import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import BLACK, KING, NO_SQUARE, WHITE, parse_square
from posdata.engine.rules.fen import FenError, format_fen, parse_fen
from posdata.engine.rules.positions import STANDARD_POSITIONS

#: (FEN, a word the error message must contain): every bad input the issue lists
BAD_FENS = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", "fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0", "fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", "fields"),
    ("", "fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "piece letter"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN9 w KQkq - 0 1", "piece letter"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w Qkq - 0 1", "7 files"),  # 7 files
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1", "9 files"),
    ("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "ranks"),  # 7 ranks
    ("rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 6"),
    ("rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "king"),   # no black king
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", "king"),   # no white king
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w kq - 0 1", "kings"),  # two white kings
    ("rnbkkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "kings"),  # two black kings
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1", "side"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", "rook"),  # K without h1 rook
    ("1nbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rook"),  # q without a8 rook
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1KNR w KQkq - 0 1", "without a king on e1"),
    ("rnbq1bnr/ppppkppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "king"),  # k: king not on e8
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", "castling"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKQkq - 0 1", "castling"),
    ("rnbqkbnr/pppp1ppp/8/8/4p3/8/PPPPPPPP/RNBQKBNR w KQkq e4 0 1", "en passant"),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1", "rank 6"),  # wrong side
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e9 0 1", "not a square"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq d3 0 1", "no pawn"),
    ("rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQq - 0 1", "pawn on h8"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNp b KQkq - 0 1", "pawn on h1"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "halfmove"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "fullmove"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 \u00b2", "fullmove"),  # '²'
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - \u0663 1", "halfmove"),  # Arabic 3
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ\u212aBNR w kq - 0 1", "piece letter"),  # Kelvin
    ("R3k3/8/8/8/8/8/8/4K3 w - - 0 1", "not to move is in check"),
    # the counters: ASCII digits in 0..9999 (halfmove) and 1..9999 (fullmove); no int() of a
    # number past Python's 4,300 digits
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 " + "9" * 5000, "fullmove"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - " + "9" * 5000 + " 1", "halfmove"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 10000 1", "halfmove"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 10000", "fullmove"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "halfmove"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - +1 1", "halfmove"),
    # more material than a game reaches (the hardware's move stack is sized by it)
    ("rnbqkbnr/pppppppp/8/8/8/P7/PPPPPPPP/RNBQKBN1 w Qkq - 0 1", "9 pawns"),
    ("rnbqkbnr/pppppppp/8/8/8/2N5/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "17 pieces"),
    ("rnbqkbnr/pppppppp/8/8/8/2N5/PPPPPPPP/RNBQK1NR w KQkq - 0 1", "missing pawns"),
]


@pytest.mark.parametrize("fen, word", BAD_FENS)
def test_bad_fen_is_rejected_with_one_line_naming_it(fen, word):
    with pytest.raises(FenError) as info:
        Board(fen)
    message = str(info.value)
    assert "\n" not in message
    assert word.lower() in message.lower(), message


@pytest.mark.parametrize("fen", [
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
    "4k3/8/8/8/8/8/8/R3K3 b - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w Kq - 12 40",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPQQ/RNBQKBNR w KQkq - 0 1",  # two pawns promoted
])
def test_good_fens_round_trip(fen):
    assert Board(fen).fen() == fen


@pytest.mark.parametrize("pos", STANDARD_POSITIONS, ids=lambda p: p.name)
def test_standard_positions_round_trip(pos):
    board = Board(pos.fen)
    assert board.fen() == pos.fen
    assert board.fen() == chess.Board(pos.fen).fen(en_passant="fen")


def test_epd_four_fields():
    board = Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3")
    assert board.ep == parse_square("e3") and board.side == BLACK
    assert board.fifty == 0
    assert board.fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"


def test_parse_fen_fields():
    pos = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R b Kq - 7 33")
    assert pos.side == BLACK and pos.ep == NO_SQUARE and pos.fifty == 7 and pos.fullmove == 33
    assert pos.castle == 1 | 8
    assert pos.piece[parse_square("e1")] == KING and pos.color[parse_square("e1")] == WHITE
    assert format_fen(pos.color, pos.piece, pos.side, pos.castle, pos.ep, pos.fifty,
                      pos.fullmove) == "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 7 33"


def test_fullmove_number_follows_the_game():
    board = Board()
    for uci in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(uci)
    assert board.fen() == "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    board = Board("4k3/8/8/8/8/8/8/R3K3 b - - 5 9")
    board.push_uci("e8d7")
    assert board.fen().endswith(" w - - 6 10")


def test_counters_at_their_bounds_read_and_write_back():
    """9999 and leading zeros read; past the bound (a game longer than the rules allow) the FEN
    is written with the counter at the bound, so that every FEN written reads back (a worker
    reads the FENs of a run's subtrees)."""
    board = Board("4k3/8/8/8/8/8/8/R3K3 b - - 9999 0009999")
    assert board.fifty == 9999 and board.fen().endswith(" 9999 9999")
    board.push_uci("e8d7")
    assert board.fifty == 10000  # the game's own count; only the text is bounded
    assert board.fen().endswith(" w - - 9999 9999")
    assert Board(board.fen()).fen() == board.fen()


def test_a_long_input_is_quoted_short():
    with pytest.raises(FenError) as info:
        Board("x" * 100_000)
    assert len(str(info.value)) < 200


def test_unknown_move_is_a_value_error():
    board = Board()
    for text in ("e2e5", "e7e5", "zz", "e1g1", ""):
        with pytest.raises(ValueError):
            board.parse_uci(text)


def test_mutated_fens_parse_or_raise_fen_error():
    """Random edits of good FENs (including non-ASCII digits and letters): each either gives a
    board whose FEN reads back the same, or a one-line FenError; never another exception."""
    rng = random.Random(4)
    alphabet = "pnbrqkPNBRQK12345678/ -wbKQkqabcdefgh0369\u00b2\u0663\u212a\u00e9"
    sources = [p.fen for p in STANDARD_POSITIONS] + [
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"]
    accepted = rejected = 0
    for _ in range(3000):
        chars = list(rng.choice(sources))
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(chars) + 1)
            r = rng.random()
            if r < 0.4 and i < len(chars):
                chars[i] = rng.choice(alphabet)
            elif r < 0.7:
                chars.insert(i, rng.choice(alphabet))
            elif i < len(chars):
                del chars[i]
        fen = "".join(chars)
        try:
            board = Board(fen)
        except FenError as e:
            assert "\n" not in str(e)
            rejected += 1
            continue
        accepted += 1
        assert Board(board.fen()).fen() == board.fen(), fen
        assert fen.isascii()
        board.legal_moves()
    assert accepted > 50 and rejected > 1000  # both paths exercised
