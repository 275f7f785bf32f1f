"""Fairy-Stockfish (pyffish 0.0.90) as the oracle of the variants whose pieces walk with modes
(issue 29, Muller's legs): legal move sets, the FEN after each move played (en passant fields
in its notation), checks given, and perft of the start positions.

As tests/engine/rules/test_fairy_oracle.py: seeded playouts that pyffish plays, from each variant's
start and a few positions built to reach the rare cases sooner, biased toward the new pieces'
moves, captures and pawn moves. The features are read from the FEN and the move alone (no
engine), and ``FLOORS`` holds each variant's rare cases to a minimum: hops, lame blocks,
move-only and capture-only targets, promotions, en passant, the bare king's end, makruk's
count (which Fairy-Stockfish writes in the FEN's en passant and halfmove fields).

make test plays ``GAMES`` playouts per variant (about 100 positions) and perft to depth 3;
``-m slow`` plays ``SLOW_GAMES`` (300 positions and more) and perft to depth 4.
"""

import random
from collections import Counter
from functools import cache

import pyffish
import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.perft import perft
from posdata.engine.rules.variants import VariantError, get_variant
from posdata.engine.rules.zobrist import full_hash
from posdata.sim.runs.variant_positions import LEGS as SAMPLE_POSITIONS

from .fen_squares import board_of

LEGS = ("grasshopper", "hoppelpoppel", "berolina", "shatranj", "makruk", "pawnsideways")

#: per variant, positions besides the start that reach the rare cases sooner (the gateware
#: generator's sample positions too)
EXTRA_STARTS = SAMPLE_POSITIONS
#: per variant, the letter of the piece the playouts favour (a pawn where the pawn is new)
FAVOURED = {"grasshopper": "g", "hoppelpoppel": "nb", "berolina": "p", "shatranj": "pbq",
            "makruk": "sp", "pawnsideways": "p"}
GAMES = 4          #: playouts per variant in make test (about 100 positions)
#: ... and with -m slow (300 positions and more; shatranj's bare kings end games sooner)
SLOW_GAMES = {"shatranj": 20}
SLOW_GAMES_DEFAULT = 12
#: per variant, the minimum count of each feature over make test's sample (about half of what
#: the seeds give); the slow sample holds three times as much
FLOORS = {
    "grasshopper": {"hop": 30, "hop_capture": 5, "check": 3, "promotion": 3},
    "hoppelpoppel": {"move_only": 40, "capture_only": 10, "check": 3, "promotion": 3},
    "berolina": {"move_only": 40, "capture_only": 5, "lame_block": 5, "en_passant": 1,
                 "promotion": 3},
    "shatranj": {"promotion": 2, "bare_king_end": 1, "check": 1},
    "makruk": {"promotion": 3, "khon_forward": 10, "check": 1, "counting": 3},
    "pawnsideways": {"move_only": 40, "lame_block": 3, "en_passant": 1, "promotion": 3},
}
#: perft of the start positions, depths 1..4, as pyffish 0.0.90 counts them
#: (test_start_perft_counts_are_fairy_stockfish_s recounts depths 1-2, -m slow to 4)
START_PERFT = {
    "grasshopper": (28, 782, 22314, 635298),
    "hoppelpoppel": (20, 400, 9034, 202459),
    "berolina": (30, 900, 28328, 882717),
    "shatranj": (16, 256, 4176, 68122),
    "makruk": (23, 529, 12012, 273026),
    "pawnsideways": (20, 400, 10022, 250145),
}


def _delta(m: str) -> tuple[int, int]:
    return ord(m[2]) - ord(m[0]), int(m[3]) - int(m[1])


def move_features(name: str, board: dict, m: str) -> set[str]:
    """What kind of move ``m`` is, from the position alone (no engine)."""
    piece = board.get(m[:2], "")
    kind = piece.lower()
    df, dr = _delta(m)
    forward = dr if piece.isupper() else -dr
    target = board.get(m[2:4])
    found = set()
    if len(m) == 5:
        found.add("promotion")
    if name == "grasshopper" and kind == "g":
        found.add("hop_capture" if target else "hop")
    if name == "hoppelpoppel" and kind in "nb":
        knight_like = {abs(df), abs(dr)} == {1, 2}
        if not target:
            found.add("move_only")
        elif knight_like != (kind == "n"):  # it took as the other piece moves
            found.add("capture_only")
    if name == "berolina" and kind == "p":
        if df and not target:
            found.add("move_only")
        if not df and target:
            found.add("capture_only")
        if not df and not target:
            found.add("en_passant")
    if name == "pawnsideways" and kind == "p":
        if not dr:
            found.add("move_only")
        if df and dr and not target:
            found.add("en_passant")
    if name == "makruk" and kind == "s" and not df and forward == 1:
        found.add("khon_forward")
    return found


def position_features(name: str, board: dict, legal: list[str], side: str) -> set[str]:
    """Features of the position: a double step blocked by its intermediate square (the lame
    leg), the game ended by the bare king."""
    found = set()
    if name in ("berolina", "pawnsideways"):
        home, step = ("2", 1) if side == "w" else ("7", -1)
        pawn = "P" if side == "w" else "p"
        for sq, ch in board.items():
            if ch != pawn or sq[1] != home:
                continue
            leaps = ((-2, 2), (2, 2)) if name == "berolina" else ((0, 2),)
            for df, dr in leaps:
                f = ord(sq[0]) - 97 + df
                if not 0 <= f < 8:
                    continue
                mid = chr(97 + f - df // 2) + str(int(home) + step * dr // 2)
                to = chr(97 + f) + str(int(home) + step * dr)
                if to not in board and mid in board:
                    found.add("lame_block")
    if name == "shatranj" and not legal:
        counts = Counter(ch.isupper() for ch in board.values())
        if min(counts[True], counts[False]) == 1:
            found.add("bare_king_end")
    return found


def starts(name: str) -> list[str]:
    return [pyffish.start_fen(name), *EXTRA_STARTS[name]]


def pick(rng: random.Random, name: str, board: dict, legal: list[str]) -> str:
    r = rng.random()
    doubles = [m for m in legal if board[m[:2]].lower() == "p" and abs(int(m[3]) - int(m[1])) == 2]
    if doubles and r < 0.2:
        return rng.choice(doubles)
    if r < 0.4:
        favoured = [m for m in legal if board[m[:2]].lower() in FAVOURED[name]]
        if favoured:
            return rng.choice(favoured)
    if r < 0.7:
        captures = [m for m in legal if m[2:4] in board or len(m) == 5]
        if captures:
            return rng.choice(captures)
    return rng.choice(legal)


@cache
def sample(name: str, games: int) -> tuple[list[tuple], Counter]:
    """Per variant: (fen, legal moves, move played, fen after it, gives check) per ply of
    seeded playouts, and the feature counts. A position without moves is recorded too (with
    no move), so that a game's end is compared."""
    rng = random.Random(f"legs-{name}")
    records, counts = [], Counter()
    fens = starts(name)
    for game in range(games):
        fen = fens[game % len(fens)]
        for _ in range(rng.randrange(20, 40)):
            legal = pyffish.legal_moves(name, fen, [])
            board = board_of(fen)
            for f in position_features(name, board, legal, fen.split()[1]):
                counts[f] += 1
            counts["counting"] += fen.split()[3].isdigit()  # makruk's count in the FEN
            if not legal:
                records.append((fen, (), None, None, None))
                break
            for f in set().union(*(move_features(name, board, x) for x in legal)):
                counts[f] += 1
            m = pick(rng, name, board, legal)
            after = pyffish.get_fen(name, fen, [m])
            check = pyffish.gives_check(name, fen, [m])
            records.append((fen, tuple(legal), m, after, check))
            counts["check"] += check
            fen = after
    counts["positions"] = len(records)
    return records, counts


def check_record(name, fen, legal, m, after, check) -> None:
    board = Board(fen, name)
    assert board.fen() == fen, f"FEN round trip in {name}"
    # Fairy-Stockfish writes an orthodox pawn's en passant square only where a capture is
    # possible; we write it after every double step (its notation's pawns: always, as we do)
    exact = get_variant(name).ep_pair or after is None or after.split()[3] != "-"
    ours = sorted(board.uci(x) for x in board.legal_moves())
    assert ours == sorted(legal), (f"{name} {fen}\n  missing: {sorted(set(legal) - set(ours))}"
                                   f"\n  extra: {sorted(set(ours) - set(legal))}")
    if m is None:
        return
    before = board.fen(), board.hash, list(board.color), list(board.piece)
    assert board.makemove(board.parse_uci(m))
    got = board.fen()
    if not exact:
        got = " ".join(got.split()[:3] + ["-"] + got.split()[4:])
    assert got == after, f"{name}: after {m} in {fen}"
    assert board.hash == full_hash(board.color, board.piece, board.side, board.castle, board.ep)
    assert board.in_check() == check, f"{name}: check after {m} in {fen}"
    board.takeback()
    assert (board.fen(), board.hash, board.color, board.piece) == before


def _floors(name: str, scale: int) -> dict:
    return {k: v * scale for k, v in FLOORS[name].items()}


@pytest.mark.parametrize("name", LEGS)
def test_legal_moves_fen_and_checks_agree_with_fairy_stockfish(name):
    records, counts = sample(name, GAMES)
    low = {k: (counts[k], floor) for k, floor in _floors(name, 1).items() if counts[k] < floor}
    assert not low, f"{name}: coverage below the floors (got, floor): {low}; {dict(counts)}"
    for record in records:
        check_record(name, *record)


@pytest.mark.slow
@pytest.mark.parametrize("name", LEGS)
def test_legal_moves_fen_and_checks_agree_with_fairy_stockfish_deep(name):
    records, counts = sample(name, SLOW_GAMES.get(name, SLOW_GAMES_DEFAULT))
    assert counts["positions"] >= 300, dict(counts)
    low = {k: (counts[k], floor) for k, floor in _floors(name, 3).items() if counts[k] < floor}
    assert not low, f"{name}: coverage below the floors (got, floor): {low}; {dict(counts)}"
    for record in records:
        check_record(name, *record)


@pytest.mark.parametrize("name", LEGS)
def test_start_perft(name):
    board = Board(variant=name)
    assert [perft(board, d) for d in (1, 2, 3)] == list(START_PERFT[name][:3])


@pytest.mark.slow
@pytest.mark.parametrize("name", LEGS)
def test_start_perft_deep(name):
    board = Board(variant=name)
    assert perft(board, 4) == perft(board, 4, bulk=True) == START_PERFT[name][3]


def oracle_perft(name: str, fen: str, depth: int) -> int:
    legal = pyffish.legal_moves(name, fen, [])
    if depth == 1:
        return len(legal)
    return sum(oracle_perft(name, pyffish.get_fen(name, fen, [m]), depth - 1) for m in legal)


@pytest.mark.parametrize("name", LEGS)
def test_start_perft_counts_are_fairy_stockfish_s(name):
    """The table above against pyffish itself, to depth 2 (3 and 4: -m slow)."""
    fen = get_variant(name).start_fen
    assert pyffish.start_fen(name) == fen
    assert [oracle_perft(name, fen, d) for d in (1, 2)] == list(START_PERFT[name][:2])


@pytest.mark.slow
@pytest.mark.parametrize("name", LEGS)
def test_start_perft_counts_are_fairy_stockfish_s_deep(name):
    fen = get_variant(name).start_fen
    assert oracle_perft(name, fen, 3) == START_PERFT[name][2]
    assert oracle_perft(name, fen, 4) == START_PERFT[name][3]


@pytest.mark.parametrize("name, fen", [
    # a grasshopper checks over a hurdle next to the king; moving the hurdle away answers it
    ("grasshopper", "4k3/4p3/8/8/8/8/8/4G1K1 b - - 0 1"),
    # ... and a piece stepping next to the king becomes a hurdle: that move is illegal
    ("grasshopper", "4k3/8/8/8/8/8/3P4/2G3K1 w - - 0 1"),
    ("grasshopper", "3k4/8/8/3R4/8/8/8/3g2K1 b - - 0 1"),
    # the hoppelpoppel knight pins along a diagonal, the bishop checks with a knight's leap
    ("hoppelpoppel", "4k3/8/8/8/8/2b5/3P4/4K3 w - - 0 1"),
    ("hoppelpoppel", "4k3/8/8/8/8/5n2/8/4K3 w - - 0 1"),
    ("hoppelpoppel", "4k3/8/8/8/8/3b4/8/4K3 w - - 0 1"),
    # a Berolina pawn checks straight ahead, its double step is blocked on the diagonal
    ("berolina", "4k3/8/8/8/8/4p3/8/4K3 w - - 0 1"),
    ("berolina", "4k3/8/8/8/8/2p5/3P4/4K3 w - - 0 1"),
    # makruk's khon attacks forward and diagonally, not sideways or straight back
    ("makruk", "3k4/8/8/8/8/8/3s4/3K4 w - - 0 1"),
    ("makruk", "3k4/8/8/8/8/8/2s5/3K4 w - - 0 1"),
    ("makruk", "3k4/8/8/8/8/3K4/3s4/8 w - - 0 1"),
])
def test_directed_positions(name, fen):
    board = Board(fen, name)
    ours = sorted(board.uci(x) for x in board.legal_moves())
    assert ours == sorted(pyffish.legal_moves(name, fen, [])), fen
    assert perft(board, 2) == perft(board, 2, bulk=True) == oracle_perft(name, fen, 2)


def test_spartan_is_refused_in_one_line():
    """Fairy-Stockfish's spartan (Black's two kings and army of its own) does not fit the
    board's codes: refused by name, with the reason, not as an unknown variant."""
    assert pyffish.start_fen("spartan").split()[0].count("k") == 2
    with pytest.raises(VariantError) as info:
        get_variant("spartan")
    message = str(info.value)
    assert "two kings" in message and "unknown" not in message and "\n" not in message
