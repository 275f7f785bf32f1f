"""The opening book shipped with posdata (engine/match/openings.txt), held to python-chess: every
line legal, 4 to 8 plies, no two reaching the same position, at least 100 of them; and a bad line
of another book named by file and line."""

import pytest

from posdata.engine.match.book import BOOK, BookError, read_book
from posdata.engine.rules.board import Board

chess = pytest.importorskip("chess")


def test_the_shipped_book_is_100_distinct_openings_legal_for_python_chess():
    book = read_book()
    assert len(book) >= 100 and len({o.name for o in book}) == len(book)
    positions = set()
    for opening in book:
        assert opening.fen is None and 4 <= len(opening.moves) <= 8, opening
        board = chess.Board()
        for word in opening.moves:
            move = chess.Move.from_uci(word)
            assert move in board.legal_moves, (opening, word)
            board.push(move)
        positions.add(board.epd())  # pieces, side, castling, a legal en passant square
    assert len(positions) == len(book)


def test_the_book_reads_as_the_file_says(tmp_path):
    path = tmp_path / "book.txt"
    path.write_text("# a comment\n\ne2e4 e7e5 # King's pawn\n  d2d4   d7d5\n"
                    "4k3/8/8/8/8/8/4P3/4K3 w - - moves e2e4 e8d7 # a pawn ending\n"
                    "4k3/8/8/8/8/8/4P3/4K3 b - - 0 40 # the same, black to move\n")
    book = read_book(str(path))
    assert [(o.name, o.moves, o.fen) for o in book] == [
        ("King's pawn", ("e2e4", "e7e5"), None),
        ("d2d4 d7d5", ("d2d4", "d7d5"), None),
        ("a pawn ending", ("e2e4", "e8d7"), "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"),
        ("the same, black to move", (), "4k3/8/8/8/8/8/4P3/4K3 b - - 0 40")]
    board = book[2].board()
    for word in book[2].moves:
        board.push_uci(word)
    assert board.fen() == "8/3k4/8/8/4P3/8/8/4K3 w - - 1 2"
    assert read_book(BOOK)[0].board().fen() == Board().fen()


@pytest.mark.parametrize("text, error", [
    ("e2e4 e7e5 g1f3 b8c6\ne2e4 e7e5 g1f3 e7e6\n", ":2: 'e7e6' is not a legal move in "),
    ("e2e4 e7e5 g1f3 b8c6 # a\ng1f3 b8c6 e2e4 e7e5 # b\n", ":2: reaches the same position as "
                                                          "line 1"),
    ("# nothing\n\n", ": no opening lines"),
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 e2e4\n", ":1: a FEN of 4 or 6 fields"),
    ("4k3/8/8/8/8/8/8/4K3 x - - 0 1\n", ":1: "),
    ("f2f3 e7e5 g2g4 d8h4\n", ":1: the game is over after it"),
])
def test_a_bad_book_line_is_named(tmp_path, text, error):
    path = tmp_path / "book.txt"
    path.write_text(text)
    with pytest.raises(BookError) as e:
        read_book(str(path))
    assert str(e.value).startswith(str(path)) and error in str(e.value)
    assert "\n" not in str(e.value)


def test_an_unreadable_book_is_one_line(tmp_path):
    with pytest.raises(BookError, match="cannot read .*nowhere.txt: No such file"):
        read_book(str(tmp_path / "nowhere.txt"))
    binary = tmp_path / "binary.bin"
    binary.write_bytes(b"\xff\xfe\x00e2e4")
    with pytest.raises(BookError, match="cannot read"):
        read_book(str(binary))
