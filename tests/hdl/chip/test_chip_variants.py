"""The perft chip plays the variants (hdl.chip.perft_thread with a variant): its counts equal the
software's (engine.rules.perft, itself held against python-chess and pyffish) on each variant's
sample positions (sim.runs.variant_positions: castling from any squares, promotions to the variant's
set, en passant, the new pieces' checks), bulk and plain, at depth 2, and on the start position at
depth 3. A difference is localised by ``run_chip_perft`` to the first position whose legal moves
differ (FEN, missing and extra moves) and shown as the failure.

Compiled models (one per variant, ~60-90 s to build, cached under ~/.cache/posdata): chess960
(castling from loaded squares) in CI; chigorin (a promotion set of three per side, different per
side, and the chancellor), amazon and almost (compound attackers in several planes) and nightrider
(the legality unit's nightrider rays, held move by move against the software in
tests/hdl/chip/test_attack.py's simulations) ``-m slow``: the CI budget.
"""

import pytest

from posdata.engine.rules.board import Board
from posdata.sim.runs.chip_perft import run_chip_perft
from posdata.sim.runs.variant_positions import sample_positions

CI_VARIANTS = ("chess960",)
SLOW_VARIANTS = ("chigorin", "amazon", "almost", "nightrider")


def check(fen: str, variant: str, depth: int, bulk: bool) -> int:
    report = run_chip_perft(Board(fen, variant), depth, "both", "cxxrtl", bulk)
    assert report.mismatch is None and report.nodes == report.sw_nodes, (
        f"{variant} perft({depth}) {'bulk' if bulk else 'plain'} of {fen}: chip {report.nodes}, "
        f"sw {report.sw_nodes}: {report.mismatch}")
    return report.nodes


def cases(variants):
    return [pytest.param(v, fen, id=f"{v}-{i}")
            for v in variants for i, fen in enumerate(sample_positions(v))]


def run_variant(variant, fen):
    for bulk in (True, False):
        check(fen, variant, 2, bulk)


@pytest.mark.parametrize("variant, fen", cases(CI_VARIANTS))
def test_chip_counts_variant_positions(variant, fen):
    run_variant(variant, fen)


@pytest.mark.slow
@pytest.mark.parametrize("variant, fen", cases(SLOW_VARIANTS))
def test_chip_counts_variant_positions_slow(variant, fen):
    run_variant(variant, fen)


@pytest.mark.parametrize("variant", [*CI_VARIANTS,
                                     pytest.param("chigorin", marks=pytest.mark.slow)])
def test_chip_depth_3(variant):
    # chess960: king b1 with rooks a1/h1 crosses five squares king side; chigorin's start
    fen = sample_positions(variant)[2 if variant == "chess960" else 0]
    assert check(fen, variant, 3, True) > 0


def test_sample_positions_reach_the_cases():
    """The CI positions do reach what the chip's variant logic handles (else the counts above
    would pass without it): Chess960 castlings where the king stays, swaps with its rook, or
    crosses several squares, and both of chigorin's promotion sets, as legal moves."""
    from posdata.engine.rules.defs import CASTLE, PROMO_SHIFT
    from posdata.engine.rules.variants import CHANCELLOR, get_variant
    kinds = set()
    for fen in sample_positions("chess960"):
        board = Board(fen, "chess960")
        for m in board.legal_moves():
            if m & CASTLE:
                c = board.castle_by_king_to[(m >> 6) & 63]
                kinds.add("stays" if c.king_from == c.king_to else
                          "swap" if c.rook_from == c.king_to else
                          "crosses" if len(c.crosses) >= 2 else "other")
    assert {"stays", "swap", "crosses"} <= kinds, kinds
    promoted = set()  # (side, piece) over the perft(2) trees' nodes
    for fen in sample_positions("chigorin"):
        board = Board(fen, "chigorin")
        for m in board.legal_moves():
            promoted |= {(board.side, m >> PROMO_SHIFT)} if m >> PROMO_SHIFT else set()
            board.makemove(m)
            promoted |= {(board.side, r >> PROMO_SHIFT) for r in board.legal_moves()
                         if r >> PROMO_SHIFT}
            board.takeback()
    sets = get_variant("chigorin").promotions
    assert promoted == {(side, p) for side in (0, 1) for p in sets[side]}, promoted
    assert CHANCELLOR in sets[0]


def test_nightrider_planes():
    """The nightrider chip's attacker planes: its nightriders in a plane of their own (the unit's
    rays), none in the knight plane; orthodox chess builds no such plane."""
    from posdata.engine.rules.defs import KNIGHT
    from posdata.hdl.chip.chessboard import optional_planes, plane_codes
    planes = plane_codes("nightrider")
    assert planes["nightrider"] == (KNIGHT,) and planes["knight"] == ()
    assert optional_planes("nightrider") == ("nightrider",) and optional_planes("chess") == ()
    assert "nightrider" not in plane_codes("chess")


@pytest.mark.slow
def test_nightrider_chip_depth_3():
    assert check(sample_positions("nightrider")[0], "nightrider", 3, True) > 0
