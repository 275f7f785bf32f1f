"""The structure terms (hdl/search/structure.py) against engine.search.leaf_structure: on seeded
random positions and on positions made rich in what the terms read (passed, doubled and isolated
pawns, rooks on open files, kings on their first two ranks behind thin shields, castling rights),
the terms of each position (``null``) and of the child after each legal move (the engine board after
makemove), fed back to back, one a clock, each result LATENCY clocks later. A census holds the moves
and terms the cases cover; planted faults (a constant wrong, the en passant victim on the wrong
square) are caught."""

import random
from collections import Counter
from dataclasses import dataclass, field, replace

import pytest
from amaranth import Mux
from amaranth.sim import Simulator

import posdata.hdl.search.structure as structure
from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import (
    BLACK,
    CAPTURE,
    CASTLE,
    EMPTY,
    EP,
    KING,
    NO_PIECE,
    PAWN,
    PIECE_LETTERS,
    PROMOTION,
    ROOK,
    SQUARE_NAMES,
    WHITE,
)
from posdata.engine.rules.fen import FenError
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.engine.search.leaf_structure import Planes, pawn_terms, rook_bonus, shield_penalty
from posdata.hdl.search.structure import LATENCY, StructureTerms
from tests.hw_positions import EXTRA_STARTS, random_positions

from .guard import run_guarded
from .planes import planes_of

TERMS = ("penalty", "passed_mg", "passed_eg", "rooks", "shield")


def reference(board) -> dict:
    """leaf_structure's terms of ``board``: per name, (white's, black's)."""
    planes = Planes.of(board)
    out = {name: [0, 0] for name in TERMS}
    for color in (WHITE, BLACK):
        own, enemy = planes.pawns[color], planes.pawns[color ^ 1]
        penalty, mg, eg = pawn_terms(own, enemy, color)
        out["penalty"][color], out["passed_mg"][color], out["passed_eg"][color] = penalty, mg, eg
        out["rooks"][color] = rook_bonus(planes.rooks[color], own, enemy)
        out["shield"][color] = shield_penalty(planes.kings[color], color, own, enemy)
    return {name: tuple(v) for name, v in out.items()}


@dataclass
class Case:
    """One input: a board (its planes, side and kings) and a move, or none (``null``)."""
    what: str
    planes: dict
    kings: tuple
    side: int
    move: int
    mover: int
    captured: int
    null: bool
    want: dict


def board_cases(board, census, rng, moves=None) -> list[Case]:
    """The board's own terms (null, the move's ports holding junk) and, per legal move (or
    ``moves`` of them drawn, and every castling, en passant and promotion), the child's."""
    planes, kings, fen = planes_of(board), tuple(board.king), board.fen()
    parent = reference(board)
    junk = rng.choice(board.moves() or [0])
    cases = [Case(f"{fen} as it stands", planes, kings, rng.randrange(2), junk,
                  rng.randrange(8), rng.randrange(8), True, parent)]
    tally_board(census, parent)
    legal = board.legal_moves()
    if moves is not None:  # the rare kinds all, a sample of the others
        rare = [m for m in legal if m & (CASTLE | EP | PROMOTION)]
        others = [m for m in legal if not m & (CASTLE | EP | PROMOTION)]
        legal = rare + rng.sample(others, min(moves, len(others)))
    for m in legal:
        frm, to = m & 63, (m >> 6) & 63
        mover, captured = board.piece[frm], board.piece[to] if board.color[to] != EMPTY else None
        uci = board.uci(m)
        assert board.makemove(m)
        want = reference(board)
        board.takeback()
        # the pieces as make/unmake's probes give them: the to-square's, NO_PIECE if empty
        cases.append(Case(f"{fen} after {uci}", planes, kings, board.side, m, mover,
                          board.piece[to], False, want))
        tally_move(census, board, m, mover, captured, parent, want)
    return cases


def tally_board(census, terms):
    census["positions"] += 1
    for name in TERMS:
        census[f"{name} nonzero"] += any(terms[name])


def tally_move(census, board, m, mover, captured, parent, want):
    side = board.side
    census["moves"] += 1
    census["black moves"] += side == BLACK
    if captured is not None:
        census[f"{PIECE_LETTERS[captured]} captured"] += 1
    census["p captured"] += bool(m & EP)
    census["en passant"] += bool(m & EP)
    if m & PROMOTION:
        census[f"promotion to {PIECE_LETTERS[m >> 18]}"] += 1
        census["promotion with capture" if m & CAPTURE else "promotion, no capture"] += 1
    if m & CASTLE:
        census[f"castle to {SQUARE_NAMES[(m >> 6) & 63]}"] += 1
    elif mover == KING:
        census["king move"] += 1
        census["king move, shield changed"] += want["shield"][side] != parent["shield"][side]
    census["rook move"] += mover == ROOK
    census["pawn move"] += mover == PAWN
    for name in TERMS:
        census[f"{name} changed"] += want[name] != parent[name]


def rich_positions(count: int, seed: int) -> list[str]:
    """Seeded legal FENs rich in what the terms read: pawns clustered on few files (doubled,
    isolated, passed), some on their seventh rank (promotions), rooks and queens (the rooks'
    plane is ``orth`` less the queens), kings on their first two ranks with a pawn or two ahead
    of them, or at home with castling rights."""
    rng = random.Random(seed)
    fens = []
    while len(fens) < count:
        board = {}
        rights = ""
        for color in (WHITE, BLACK):
            back, up = (0, 1) if color == WHITE else (7, -1)
            letters = "KQ" if color == WHITE else "kq"
            castler = rng.random() < 0.5
            if castler:  # ready to castle, one way or both
                board[back * 8 + 4] = (color, KING)
                for rook_file, letter in ((7, letters[0]), (0, letters[1])):
                    if rng.random() < 0.7:
                        board[back * 8 + rook_file] = (color, ROOK)
                        rights += letter
                king = back * 8 + 4
            else:
                rank = back + up * rng.randrange(2) if rng.random() < 0.85 else rng.randrange(8)
                king = rank * 8 + rng.randrange(8)
                board[king] = (color, KING)
            # a thin shield: a pawn or two on the files around the king, one or two ranks up
            for df in (-1, 0, 1):
                f = (king & 7) + df
                r = (king >> 3) + up * rng.choice((1, 1, 2))
                if 0 <= f < 8 and 1 <= r <= 6 and rng.random() < 0.4:
                    board.setdefault(r * 8 + f, (color, PAWN))
            for file in rng.sample(range(8), rng.randint(1, 5)):
                for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
                    r = rng.randint(1, 6)
                    board.setdefault(r * 8 + file, (color, PAWN))
            for piece in rng.sample((ROOK, ROOK, 5, 5, 2, 3), rng.randint(1, 4)):  # Q, N, B
                sq = rng.randrange(8, 56) if castler else rng.randrange(64)  # a clear back rank
                board.setdefault(sq, (color, piece))
        side = rng.randrange(2)
        order = "".join(c for c in "KQkq" if c in rights) or "-"
        fen = f"{placement(board)} {'wb'[side]} {order} - 0 1"
        try:
            Board(fen)
        except FenError:
            continue
        fens.append(fen)
    return fens


def placement(board: dict) -> str:
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            if rank * 8 + file not in board:
                empty += 1
                continue
            if empty:
                row, empty = row + str(empty), 0
            color, piece = board[rank * 8 + file]
            letter = PIECE_LETTERS[piece]
            row += letter.upper() if color == WHITE else letter
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def all_cases(seed=11) -> tuple[list[Case], Counter]:
    rng = random.Random(seed)
    census = Counter()
    cases = []
    for fen in [STANDARD_POSITIONS[0].fen, *EXTRA_STARTS]:
        cases += board_cases(Board(fen), census, rng)
    for fen in random_positions(30, seed=seed):
        cases += board_cases(Board(fen), census, rng, moves=12)
    for fen in rich_positions(60, seed=seed):
        cases += board_cases(Board(fen), census, rng, moves=12)
        if "-" not in fen.split()[2]:  # castling rights: each side to move in turn
            other = fen.replace(" w ", " B ").replace(" b ", " w ").replace(" B ", " b ")
            try:
                cases += board_cases(Board(other), census, rng, moves=4)
            except FenError:
                pass
    return cases, census


@dataclass
class Outcome:
    mismatches: list = field(default_factory=list)  #: (what, term, got, want, move)
    results: int = 0
    finished: bool = False


def run(cases, stop_at_first=False) -> Outcome:
    """The cases one a clock into a fresh unit; each result read LATENCY clocks after its
    inputs, junk on the inputs after the last."""
    dut = StructureTerms()
    outcome = Outcome()

    def feed(ctx, case):
        for name, value in case.planes.items():
            ctx.set(getattr(dut.planes, name), value)
        ctx.set(dut.planes.king[0], case.kings[0])
        ctx.set(dut.planes.king[1], case.kings[1])
        ctx.set(dut.side, case.side)
        ctx.set(dut.move.as_value(), case.move)  # engine's packed move is the layout
        ctx.set(dut.mover, case.mover)
        ctx.set(dut.captured, case.captured)
        ctx.set(dut.null, case.null)

    async def bench(ctx):
        for clock in range(len(cases) + LATENCY):
            feed(ctx, cases[clock] if clock < len(cases) else cases[clock % len(cases)])
            if clock >= LATENCY:
                case = cases[clock - LATENCY]
                outcome.results += 1
                for name in TERMS:
                    port = getattr(dut, name)
                    got = (ctx.get(port[WHITE]), ctx.get(port[BLACK]))
                    if got != case.want[name]:
                        outcome.mismatches.append((case.what, name, got, case.want[name],
                                                   None if case.null else case.move))
                if stop_at_first and outcome.mismatches:
                    return
            await ctx.tick()
        outcome.finished = True

    sim = Simulator(dut)
    sim.add_testbench(bench)
    run_guarded(sim, len(cases) + 100)
    return outcome


@pytest.fixture(scope="module")
def cases():
    return all_cases()


def test_terms_match_the_reference(cases):
    cases, census = cases
    outcome = run(cases)
    assert outcome.finished, "the testbench did not finish (hung?)"
    assert outcome.results == len(cases)
    assert not outcome.mismatches, outcome.mismatches[:5]
    for kind in ("en passant", "promotion with capture", "promotion, no capture", "king move",
                 "rook move",
                 "p captured", "r captured", "king move, shield changed"):
        assert census[kind] >= 5, (kind, census)
    for piece in "qrbn":
        assert census[f"promotion to {piece}"] >= 3, (piece, census)
    for square in ("g1", "c1", "g8", "c8"):
        assert census[f"castle to {square}"] >= 5, (square, census)
    for name in TERMS:
        assert census[f"{name} nonzero"] >= 20 and census[f"{name} changed"] >= 20, (
            name, census)
    assert census["positions"] >= 120 and census["moves"] >= 1200, census


def test_back_to_back_results_are_latency_clocks_late(cases):
    """Every case differs from the next in some term, so a result a clock early or late would
    read its neighbour's: the run above holds them LATENCY clocks behind. Here: how many
    neighbours differ, so that claim has teeth."""
    cases, _ = cases
    differ = sum(a.want != b.want for a, b in zip(cases, cases[1:]))
    assert differ >= 0.5 * len(cases), differ


@pytest.mark.parametrize("name, index, caught", [
    ("PASSED_EG", 4, "passed_eg"),
    ("PASSED_MG", 6, "passed_mg"),
    ("ISOLATED_PAWN", None, "penalty"),
    ("DOUBLED_PAWN", None, "penalty"),
    ("ROOK_HALF_OPEN_FILE", None, "rooks"),
    ("SHIELD_OPEN", None, "shield"),
    ("SHIELD_ADVANCED", None, "shield"),
])
def test_a_wrong_constant_is_caught(cases, monkeypatch, name, index, caught):
    value = getattr(structure, name)
    if index is None:
        wrong = value + 1
    else:
        wrong = tuple(v + (i == index) for i, v in enumerate(value))
    monkeypatch.setattr(structure, name, wrong)
    outcome = run(cases[0], stop_at_first=True)
    assert outcome.mismatches, f"{name} wrong, and no case noticed"
    assert outcome.mismatches[0][1] == caught, outcome.mismatches[0]


def test_a_wrong_en_passant_victim_is_caught(cases, monkeypatch):
    # the victim a rank the wrong way: on the capturer's far side
    monkeypatch.setattr(structure, "ep_victim",
                        lambda to_hot, side: Mux(side, to_hot >> 8, (to_hot << 8)[:64]))
    outcome = run(cases[0], stop_at_first=True)
    assert outcome.mismatches, "the victim on the wrong square, and no case noticed"
    move = outcome.mismatches[0][4]
    assert move is not None and move & EP, outcome.mismatches[0]


def test_a_wrong_captured_piece_is_caught(cases):
    """The to-square's probe wired wrong (NO_PIECE always): a rook taken is missed."""
    blind = [replace(case, captured=NO_PIECE) for case in cases[0]]
    outcome = run(blind, stop_at_first=True)
    assert outcome.mismatches, "the captured piece ignored, and no case noticed"
    assert outcome.mismatches[0][1] == "rooks", outcome.mismatches[0]
