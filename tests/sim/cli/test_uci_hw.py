"""The UCI engine on the gateware's generator (MoveGen hw, the compiled model): the same
guarantees as on the reference. ``stop`` ends a ``go perft 6`` and a ``go infinite`` within a
second, and overflowing numbers still give the legal (here: mating) bestmove."""

import time

import chess

from posdata.sim.drivers.movegens import movegens_on
from tests.engine.uci.test_uci_input import BIG, MATE_FEN
from tests.engine.uci.uci_inprocess import Engine, legal_in


def test_uci_on_the_gateware_stops_and_moves():
    e = Engine(movegens=movegens_on("cxxrtl"))
    try:
        e.say("setoption name MoveGen value hw")  # loads (on a cold cache: builds) the model
        assert e.engine.movegen_name == "hw", e.lines
        for go, ends in (("go perft 6", "info string perft stopped"), ("go infinite", "bestmove")):
            e.say("position startpos", go)
            time.sleep(0.2)  # into the work (it holds wherever the stop lands)
            e.ready()
            seconds = e.timed("stop")
            line, _ = e.expect(ends)
            # idle <1 ms: the stop is seen at the next generation, not at the end of a root
            # move or an iteration (depth 5 ends ~1.5 s later), nor never (the guard)
            assert seconds < 1.0, f"{go}: {ends} after {seconds:.2f} s"
        assert legal_in(chess.STARTING_FEN, line.split()[1])
        assert e.engine.movegen.calls > 0  # the gateware really answered
        e.say(f"position fen {MATE_FEN}", f"go wtime {BIG} btime {BIG}")
        assert e.expect("bestmove")[0] == "bestmove a8a1"
    finally:
        e.close()
