"""What runs each variant, declared once (engine.rules.capabilities): the rules on made-up variants
(each refusal reachable), the one-line refusal, and the engine's refusal sites (the search's job
check, the UCI engine's Backend and MoveGen) refusing exactly the variants the declaration
does."""

import dataclasses
import io

import pytest

from posdata.engine.rules import movegen as reference
from posdata.engine.rules.board import Board
from posdata.engine.rules.capabilities import (
    BY_KEY,
    CAPABILITIES,
    chess_difference,
    chip_problem,
    refusal,
    runs_on,
    table_problem,
)
from posdata.engine.rules.defs import BISHOP, KNIGHT
from posdata.engine.rules.variants import CHESS, VARIANTS
from posdata.engine.search.leaf_search import job_problem
from posdata.engine.uci.protocol import UciEngine
from tests.made_up_variants import COMMONER, DABBABA, FORWARD, made_up


def test_every_variant_runs_in_the_software_and_on_the_generator():
    for v in VARIANTS:
        assert runs_on(v)[:2] == ("sw", "gen"), v.name
    assert runs_on(CHESS) == tuple(c.key for c in CAPABILITIES)


def test_the_rules_refuse_made_up_variants():
    """Each computed limit is reachable: Black's tables run out, a piece the chip has no
    plane for, a game that is not chess's."""
    assert "needs a table of its own" in table_problem(FORWARD)
    assert runs_on(FORWARD) == ("sw",)
    assert table_problem(made_up("one", {BISHOP: "FfW"})) is None  # one fits the free table
    assert table_problem(DABBABA) is None and "dabbaba rider" in chip_problem(DABBABA)
    assert "king steps" in chip_problem(COMMONER)
    assert chess_difference(DABBABA) == "its pieces"
    assert chess_difference(CHESS) is None
    for change, words in [({"chess960": True}, "castling"), ({"bare_king": True}, "end"),
                          ({"pawn": "fmWfcF"}, "pawn"), ({"promotion_rank": 5}, "promotions"),
                          ({"promotions": ((BISHOP,), (KNIGHT,))}, "promotions")]:
        assert words in chess_difference(dataclasses.replace(CHESS, **change)), change


def test_a_refusal_is_one_line_naming_the_variant_and_what_runs_it():
    assert refusal(CHESS, "search") is None
    line = refusal("amazon", "search")
    assert line.startswith("the chip's search plays orthodox chess only, not amazon (")
    assert line.endswith("amazon runs on sw, gen, hw, ecp5 (posdata variants)")
    line = refusal("chess960", "ecp5", "the board's perft chip")
    assert line == ("the board's perft chip does not play chess960 (the board protocol carries "
                    "no castling squares per position); chess960 runs on sw, gen, "
                    "gen-verilator, hw (posdata variants)")


def test_an_ecp5_board_takes_every_variant_with_modes():
    """Berolina's too: its pawn passes diagonally, and the host sends en passant's victim with
    the position (protocol version 4) instead of the board deriving it."""
    moded = {v.name for v in VARIANTS if v.has_modes}
    assert "berolina" in moded and all("ecp5" in runs_on(v) for v in moded)


def test_only_places_that_play_chess_alone_say_so():
    orthodox = {c.key for c in CAPABILITIES if c.orthodox_only}
    assert orthodox == {c.key for c in CAPABILITIES
                        if all(c.key not in runs_on(v) for v in VARIANTS if v is not CHESS)}
    assert "hw" not in orthodox and "search" in orthodox


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_the_search_job_check_refuses_what_the_declaration_does(variant):
    problem = job_problem(Board(None, variant), -100, 100, 1)
    assert (problem is None) == ("search" in runs_on(variant)), problem
    assert problem == refusal(variant, "search", "the search thread")


class ChessOnly:
    """A generator that declares no SUPPORTS_VARIANTS, as the gateware's does."""
    from posdata.engine.rules.movegen import gen, gen_caps  # noqa: F401


def uci_accepts(variant, backend_first: str) -> tuple[bool, str]:
    """Does the UCI engine take ``variant`` with ``backend_first`` set before it? And what it
    said."""
    out = io.StringIO()
    engine = UciEngine(out=out, movegens={"sw": lambda: reference, "hw": ChessOnly})
    engine.handle(f"setoption name Backend value {backend_first}")
    engine.handle(f"setoption name UCI_Variant value {variant.name}")
    return engine.variant is variant, out.getvalue()


@pytest.mark.parametrize("backend, key", [("sw", "search"), ("gen", "search-gen")])
def test_the_uci_engine_refuses_what_the_declaration_does(backend, key):
    for v in VARIANTS:
        accepted, said = uci_accepts(v, backend)
        assert accepted == (key in runs_on(v)), (v.name, said)
        if not accepted:
            assert refusal(v, key, None if key == "search-gen" else
                           f"Backend {backend} (the chip's search)") in said, said


def test_every_place_has_its_words():
    for c in CAPABILITIES:
        assert c.key and c.what and c.where and BY_KEY[c.key] is c
