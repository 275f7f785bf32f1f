"""UCI's Backend and ChipDepth options: the chip's search (here over the reference, Backend sw)
behind go, held to HostSearch; bad values and variants the chip cannot play answered with an
info string and the option left as it was."""

import pytest

from posdata.engine.rules import movegen as reference_movegen
from posdata.engine.rules.board import Board
from posdata.engine.search.host_search import HostSearch, ReferenceLeaf
from posdata.engine.search.leaf_search import MAX_JOB_DEPTH

from .uci_inprocess import Engine

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


@pytest.fixture
def engine():
    e = Engine()
    yield e
    e.close()


def info_strings(e) -> list[str]:
    return [line for line in e.lines if line.startswith("info string")]


def test_uci_offers_backend_and_chip_depth(engine):
    engine.say("uci")
    engine.expect("uciok")
    assert "option name Backend type combo default tscp var tscp var sw" in engine.lines
    assert f"option name ChipDepth type spin default 2 min 0 max {MAX_JOB_DEPTH}" in engine.lines


@pytest.mark.parametrize("chip_depth", [0, 1, 2])
def test_go_depth_is_the_host_search(engine, chip_depth):
    engine.say("setoption name Backend value sw", f"setoption name ChipDepth value {chip_depth}",
               f"position fen {KIWIPETE}", "go depth 2")
    line, _ = engine.expect("bestmove", 60)  # a hang guard: idle ~0.5 s
    want = HostSearch(Board(KIWIPETE), ReferenceLeaf(), chip_depth).search(2)
    assert line == f"bestmove {Board(KIWIPETE).uci(want.best_move)}"
    last = [x for x in engine.lines if x.startswith("info depth 2 ")][-1]
    assert f" score cp {want.score} " in last
    assert last.endswith(" pv " + " ".join(Board(KIWIPETE).uci(m) for m in want.pv))
    assert not info_strings(engine)


def test_stop_ends_an_infinite_search_with_one_bestmove(engine):
    engine.say("setoption name Backend value sw", "position startpos", "go infinite")
    seconds = engine.timed("stop")
    line, _ = engine.expect("bestmove")
    # idle ~0.015 s (the first iteration completes, then the stop is seen at the next host node
    # or job); a stop ignored would leave it running for ever (the guard)
    assert seconds < 1.0 and line != "bestmove 0000"
    engine.say("isready")
    engine.expect("readyok")
    assert sum(x.startswith("bestmove") for x in engine.lines) == 1


def test_movetime_is_kept(engine):
    engine.say("setoption name Backend value sw", "position startpos", "go movetime 200")
    _, seconds = engine.expect("bestmove")
    # idle ~0.17 s (the movetime less the overhead), as under load: the deadline is the wall
    # clock's. The bound, over ten times that, catches a deadline far longer than asked (none
    # at all: no bestmove, the guard). By the engine's own clock no iteration completed past
    # the movetime: the deadline cut the one under way (depth 4, which ends at ~0.34 s idle),
    # as a deadline looked at only between iterations would not.
    assert seconds < 3
    assert all(int(w[w.index("time") + 1]) <= 200 for w in map(str.split, engine.lines)
               if w[:2] == ["info", "depth"]), engine.lines


@pytest.mark.parametrize("option, value, said", [
    ("Backend", "hw", "Backend must be one of tscp, sw"),
    ("Backend", "", "Backend must be one of"),
    ("ChipDepth", "9", f"ChipDepth must be an integer from 0 to {MAX_JOB_DEPTH}"),
    ("ChipDepth", "two", "ChipDepth must be an integer"),
])
def test_bad_values_are_said_and_ignored(engine, option, value, said):
    engine.say(f"setoption name {option} value {value}")
    assert any(said in x for x in info_strings(engine)), engine.lines
    assert (engine.engine.backend, engine.engine.chip_depth) == ("tscp", 2)


def test_the_chip_plays_orthodox_chess_only(engine):
    engine.say("setoption name UCI_Variant value amazon", "setoption name Backend value sw")
    assert engine.engine.backend == "tscp"
    engine.say("setoption name UCI_Variant value chess", "setoption name Backend value sw",
               "setoption name UCI_Chess960 value true")
    assert (engine.engine.backend, engine.engine.chess960) == ("sw", False)
    said = info_strings(engine)
    assert len(said) == 2 and all("orthodox chess only" in x for x in said)


def test_searchmoves_is_said_to_be_ignored(engine):
    engine.say("setoption name Backend value sw", "position startpos",
               "go depth 1 searchmoves a2a3")
    engine.expect("bestmove", 30)
    assert any("searchmoves is not taken" in x for x in info_strings(engine))


def test_a_leaf_that_cannot_be_made_leaves_the_backend():
    def broken():
        raise OSError("no C++ compiler")
    e = Engine(leaves={"sw": ReferenceLeaf, "hw": broken})
    try:
        e.say("setoption name Backend value hw")
        assert e.engine.backend == "tscp"
        assert any("Backend hw unavailable: OSError: no C++ compiler" in x
                   for x in info_strings(e))
    finally:
        e.close()


def test_movegen_is_the_older_spelling():
    e = Engine(movegens={"sw": lambda: reference_movegen, "hw": lambda: reference_movegen})
    try:
        e.say("uci")
        e.expect("uciok")
        assert "option name Backend type combo default tscp var tscp var gen var sw" in e.lines
        e.say("setoption name Backend value gen")
        assert (e.engine.backend, e.engine.movegen_name) == ("gen", "hw")
        e.say("setoption name MoveGen value sw")
        assert (e.engine.backend, e.engine.movegen_name) == ("tscp", "sw")
    finally:
        e.close()
