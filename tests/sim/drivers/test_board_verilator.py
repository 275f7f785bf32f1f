"""The board design under Verilator against its CXXRTL model: the same sessions on both, byte for
byte and clock for clock on the line (the power-up self-test, STATUS, LOAD, PERFT plain and bulk
followed by STATUS polls, a garbled frame and the resync after it; in make test-slow: make test
builds one board model, Verilator's, and tests/hdl/link runs the protocol on it); random
X-initialisation changes nothing; the model cache's keys; the simulator a CompiledBoard runs by
default."""

import shutil

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import BY_NAME
from posdata.hdl.link.protocol import Cmd, Err, State, command_frame, perft_payload
from posdata.sim.drivers.fpga_board import BoardClient
from posdata.sim.models.designs import DESIGNS

pytestmark = pytest.mark.skipif(
    not any(shutil.which(c) for c in ("c++", "g++", "clang++")),
    reason="no C++ compiler: the board's models cannot be built")


class Recorder:
    """A transport that logs what goes each way and the board's clock at each point."""

    def __init__(self, board):
        self.board, self.log = board, []
        for name in ("name", "limit", "frame_timeout_s", "poll_interval", "just_reset"):
            setattr(self, name, getattr(board, name))
        self.close, self.probe = board.close, board.probe

    def write(self, data: bytes) -> None:
        self.log.append(("write", bytes(data), self.board.cycle))
        self.board.write(data)

    def read(self, n: int) -> bytes:
        data = self.board.read(n)
        self.log.append(("read", data, self.board.cycle))
        return data

    def sleep(self, seconds: float) -> None:
        self.board.sleep(seconds)
        self.log.append(("sleep", seconds, self.board.cycle))

    def discard_input(self) -> None:
        self.board.discard_input()
        self.log.append(("discard", None, self.board.cycle))


def session(simulator: str, depth: int = 3) -> tuple[list, list]:
    """One board's session from power-up: what crossed the line, when, and what the client made
    of it."""
    from posdata.sim.drivers.fpga_board_sim import CompiledBoard
    line = Recorder(CompiledBoard(verbose=False, simulator=simulator))
    client = BoardClient(line)
    seen = [client.wait_self_test(), client.status(), line.probe()]
    board = Board(BY_NAME["kiwipete"].fen)
    for bulk in (True, False):
        count = client.perft(board, depth, bulk)
        seen += [(count.leaves, count.clocks), client.status()]
    frame = bytearray(command_frame(Cmd.PERFT, perft_payload(3, True, 1)))
    frame[-1] ^= 0x04  # the CRC
    line.write(bytes(frame))
    reply = line.read(5)
    assert reply[0] == Err.BAD_CRC, f"{simulator}: {reply.hex(' ')}"
    client.resync()
    seen += [reply, client.ping(), client.status(), line.probe(), client.generate(board)]
    line.close()
    return line.log, seen


@pytest.mark.slow
def test_the_same_sessions_to_the_clock():
    cxxrtl_log, cxxrtl_seen = session("cxxrtl")
    verilator_log, verilator_seen = session("verilator")
    assert len(verilator_log) == len(cxxrtl_log)
    for v, c in zip(verilator_log, cxxrtl_log):
        assert v == c, f"verilator {v} where cxxrtl {c}"
    assert verilator_seen == cxxrtl_seen
    # and the session is a real one: the counts are the published ones
    assert cxxrtl_seen[3][0] == cxxrtl_seen[5][0] == BY_NAME["kiwipete"].counts[2]
    assert cxxrtl_seen[4].state == State.DONE and cxxrtl_log[-1][2] > 1_000_000


def test_random_x_initialisation_changes_nothing(monkeypatch):
    zeros = session("verilator", depth=2)
    monkeypatch.setenv("POSDATA_X_SEED", "31")
    assert session("verilator", depth=2) == zeros
    assert zeros[1][3][0] == BY_NAME["kiwipete"].counts[1]


def test_model_keys_and_defines():
    from posdata.sim.models import cxxrtl, verilator
    params = {"divisor": 4, "engines": 1, "self_test_depth": 4}
    keys = {verilator.sources_key("board", params), verilator.sources_key("search"),
            verilator.sources_key("board", {**params, "divisor": 5}),
            verilator.sources_key("chip", {"engines": 1}), cxxrtl.sources_key("board", params)}
    assert len(keys) == 5
    assert "#define POSDATA_UART_DIVISOR 4" in verilator.entry_defines("board", params)
    assert "POSDATA_SEARCH_PHASES" in verilator.entry_defines("search", {})


def test_the_default_simulator(monkeypatch):
    """targets.MODEL_DEFAULTS' choice where Verilator is installed, CXXRTL's where not; the
    iCEBreaker's board is CXXRTL's alone."""
    from posdata.sim.drivers import targets
    from posdata.sim.drivers.fpga_board_sim import CompiledBoard
    from posdata.sim.models import verilator as build
    from posdata.sim.models.toolchain import ToolchainError
    chosen = DESIGNS["board"].default_simulator
    assert targets.model_default("board") == chosen
    assert CompiledBoard(verbose=False).simulator == chosen

    def missing():
        raise ToolchainError("Verilator needs perl, which is not on PATH")
    monkeypatch.setattr(build, "find_verilator", missing)
    assert targets.model_default("board") == targets.model_default("search") == "cxxrtl"
    with pytest.raises(ValueError, match="CXXRTL model only"):
        CompiledBoard(design="icebreaker", simulator="verilator")


def test_the_icebreaker_has_no_verilator_model(capsys):
    from posdata.sim.cli import main
    assert main(["board", "ping", "--target", "verilator", "--board", "icebreaker"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--board icebreaker has a CXXRTL model only" in err
