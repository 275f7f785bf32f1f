"""The perft chip (hdl.chip.perft_chip) counting by itself, on its compiled model (the chip's
default simulator: sim.drivers.targets.chip_default), against the published counts and the
reference's software perft: standard positions, seeded random positions whose features are
counted and asserted, divide, plain against bulk, -j 2 against -j 1."""

import json
import random

import chess
import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import move_uci
from posdata.engine.rules.perft import divide, perft
from posdata.engine.rules.positions import BY_NAME, STANDARD_POSITIONS
from posdata.sim.cli import main as cli_main
from posdata.sim.drivers.targets import chip_default, make_chip
from tests.hw_positions import EXTRA_STARTS

#: depth per standard position for the fast set (the slow set goes one deeper)
DEPTHS = {"initial": 4, "kiwipete": 3, "position3": 4, "position4": 3, "position5": 3,
          "position6": 3}


@pytest.fixture(scope="module")
def chip():
    # the chip's default simulator (Verilator's, ~5x CXXRTL's speed); CXXRTL's is held to it
    # clock for clock in tests/sim/drivers/test_chip_verilator.py
    return make_chip(chip_default())


@pytest.mark.parametrize("bulk", [True, False], ids=["bulk", "plain"])
@pytest.mark.parametrize("pos", STANDARD_POSITIONS, ids=lambda p: p.name)
def test_standard_positions(chip, pos, bulk):
    depth = DEPTHS[pos.name]
    count = chip.perft(Board(pos.fen), depth, bulk)
    assert not count.overflow
    assert count.leaves == pos.counts[depth - 1]
    # every clock of the count is accounted for, per thread, by one phase
    assert all(abs(sum(t.values()) - count.clocks) <= 4 for t in count.phases), count


@pytest.mark.slow
@pytest.mark.parametrize("bulk", [True, False], ids=["bulk", "plain"])
@pytest.mark.parametrize("name, depth", [("initial", 5), ("kiwipete", 4), ("position3", 5),
                                         ("position4", 4), ("position5", 4), ("position6", 4)])
def test_standard_positions_deeper(chip, name, depth, bulk):
    assert chip.perft(Board(BY_NAME[name].fen), depth, bulk).leaves == \
        BY_NAME[name].counts[depth - 1]


# --- seeded random positions, with a census of what they exercise -------------------------------

DOUBLE_CHECK_STARTS = (  # a knight in front of a rook on the king's file: Nd6+/Nf6+ checks twice
    "4k3/pp6/8/8/4N3/8/PP6/R3RK2 w - - 0 1",
    "r3rk2/pp6/8/4n3/8/8/PP6/4K3 b - - 0 1",
)


def features(fen: str) -> set[str]:
    """What the legal moves of ``fen`` offer (python-chess is the judge)."""
    b = chess.Board(fen)
    out = set()
    for m in b.legal_moves:
        if b.is_en_passant(m):
            out.add("ep")
        if b.is_castling(m):
            side = "white" if b.turn == chess.WHITE else "black"
            out.add(f"{side}-{'kingside' if b.is_kingside_castling(m) else 'queenside'}")
        if m.promotion:
            out.add(f"promote-{chess.piece_symbol(m.promotion)}")
    checkers = len(b.checkers())
    if checkers:
        out.add("check")
    if checkers >= 2:
        out.add("double-check")
    if any(b.is_pinned(b.turn, sq) for sq in b.pieces(chess.PAWN, b.turn) | b.occupied_co[b.turn]
           if sq != b.king(b.turn)):
        out.add("pin")
    return out


def random_chip_positions(count: int, seed: int) -> list[tuple[str, int]]:
    """(FEN, depth 2 or 3) from seeded random playouts that favour double steps, promotions,
    castling and checks, so each feature shows up often."""
    rng = random.Random(seed)
    starts = [p.fen for p in STANDARD_POSITIONS] + list(EXTRA_STARTS) + list(DOUBLE_CHECK_STARTS)
    out = []
    while len(out) < count:
        board = chess.Board(rng.choice(starts))
        for _ in range(rng.randint(0, 30)):
            moves = list(board.legal_moves)
            if not moves:
                break
            weights = [4 if (board.is_castling(m) or m.promotion or board.gives_check(m)
                             or (board.piece_type_at(m.from_square) == chess.PAWN
                                 and abs(m.to_square - m.from_square) == 16)) else 1
                       for m in moves]
            board.push(rng.choices(moves, weights)[0])
            if board.is_game_over():
                break
            # keep a rare chance when it comes: en passant, or the king in double check
            if ((board.has_legal_en_passant() or len(board.checkers()) >= 2)
                    and rng.random() < 0.6):
                break
        if board.is_game_over():
            continue
        out.append((board.fen(), rng.choice((2, 2, 3))))
    return out


def test_random_positions(chip):
    cases = random_chip_positions(220, seed=2026)
    seen: dict[str, int] = {}
    for fen, _ in cases:
        for f in features(fen):
            seen[f] = seen.get(f, 0) + 1
    wanted = {"ep": 10, "check": 15, "double-check": 3, "pin": 8,
              **{f"{side}-{wing}": 4 for side in ("white", "black")
                 for wing in ("kingside", "queenside")},
              **{f"promote-{p}": 5 for p in "qrbn"}}
    assert all(seen.get(f, 0) >= n for f, n in wanted.items()), seen
    wrong = []
    for i, (fen, depth) in enumerate(cases):
        bulk = i % 2 == 0
        want = perft(Board(fen), depth, bulk=bulk)
        got = chip.perft(Board(fen), depth, bulk)
        if got.leaves != want or got.overflow:
            wrong.append(f"{fen} depth {depth} {'bulk' if bulk else 'plain'}: chip {got.leaves}, "
                         f"software {want}")
    assert not wrong, "\n".join(wrong[:10])


def test_legal_moves_listed(chip):
    for fen, _ in random_chip_positions(40, seed=7):
        board = Board(fen)
        listed = sorted(move_uci(m) for m in chip.list_moves(board, legal=True).moves)
        assert listed == sorted(move_uci(m) for m in board.legal_moves()), fen
        assert chip.list_moves(board, legal=False).moves == board.moves(), fen


def test_threads_share_the_work(chip):
    """Both threads count: each claims nodes at the split ply."""
    count = chip.perft(Board(STANDARD_POSITIONS[0].fen), 4, True)
    generate = [t["generate"] for t in count.phases]
    assert min(generate) > 0.4 * sum(generate)


# --- through the CLI: divide, plain against bulk, jobs ------------------------------------------

def perft_json(capsys, *args) -> dict:
    code = cli_main(["perft", "--json", "--quiet", *args])
    out = json.loads(capsys.readouterr().out)
    assert code == (0 if out.get("match", True) is not False else 1)
    return out


def test_divide_equals_software(capsys):
    fen = BY_NAME["kiwipete"].fen
    hw = perft_json(capsys, "--fen", fen, "--depth", "3", "--backend", "hw", "--divide",
                    "--bulk", "-j", "1")
    sw = {move_uci(m): n for m, n in divide(Board(fen), 3).items()}
    assert hw["divide"] == sw and hw["nodes"] == sum(sw.values())


def test_plain_equals_bulk_and_jobs_agree(capsys):
    fen = BY_NAME["position4"].fen
    runs = [perft_json(capsys, "--fen", fen, "--depth", "3", "--backend", "hw", *extra)
            for extra in (["--bulk", "-j", "1"], ["-j", "1"], ["--bulk", "-j", "2"])]
    assert len({r["nodes"] for r in runs}) == 1 == len({r["mode"] for r in runs[::2]})
    assert runs[0]["mode"] == "bulk" and runs[1]["mode"] == "plain"
    assert runs[0]["hw_cycles"] < runs[1]["hw_cycles"]  # bulk makes no leaf


def test_both_agrees_and_reports_clocks(capsys):
    out = perft_json(capsys, "--depth", "3", "--backend", "both", "--bulk", "--mhz", "100")
    assert out["match"] is True and out["nodes"] == out["sw_nodes"] == 8902
    assert out["hw_seconds"] == pytest.approx(out["hw_cycles"] / 100e6)
    assert out["cycles_per_node"] == pytest.approx(out["hw_cycles"] / out["nodes"], rel=1e-3)


def test_perft_zero_is_one_leaf(chip):
    """Every thread could count the root: only the one that claims it does."""
    assert chip.perft(Board(STANDARD_POSITIONS[0].fen), 0).leaves == 1


def test_counts_in_a_row_split_at_the_root(chip):
    """A count starts from a fresh claim counter: the last count's must not skip this one's
    root (a thread's 'taken' is worked out anew)."""
    board = Board(BY_NAME["kiwipete"].fen)
    runs = ((2, False), (2, True), (1, True))
    assert [chip.perft(board, d, bulk, 0).leaves for d, bulk in runs] == [2039, 2039, 48]
