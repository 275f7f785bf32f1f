"""posdata board: the whole host path, pyserial included, against the board's compiled model
behind a pseudo-terminal (as a USB serial port looks to pyserial); every action with --target
verilator (the default simulator of the compiled board: make test builds one board model); one
line on stderr and exit status 2 for bad input, a missing or silent port."""

import json
import os
import select
import threading
from contextlib import contextmanager

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import move_uci
from posdata.engine.rules.positions import BY_NAME, STANDARD_POSITIONS
from posdata.sim.cli import main
from posdata.sim.drivers.fpga_board_sim import CompiledBoard
from tests.compiled import compiled_cycles


@contextmanager
def pty_board(simulated: bool = True, corrupt_at: int | None = None, board=None,
              chunk: int = 2000):
    """A pseudo-terminal whose far end is the board's compiled model (or ``board``, another
    simulated board, or nobody): pyserial opens it like a USB serial port, a thread carries the
    bytes to and from the model. ``corrupt_at``: flip a bit of the board's n-th byte on its way
    to the host. ``chunk``: clocks simulated between looks at the line."""
    master, slave = os.openpty()
    stop = threading.Event()
    errors = []
    if simulated and board is None:
        board = CompiledBoard(verbose=False)  # a cold build takes a minute

    def bridge():
        try:
            sent = 0
            while not stop.is_set():
                if select.select([master], [], [], 0)[0]:
                    board.write(os.read(master, 4096))
                board.run_cycles(chunk)
                if board.in_waiting:
                    data = bytearray(board.read(board.in_waiting))
                    if corrupt_at is not None and sent <= corrupt_at < sent + len(data):
                        data[corrupt_at - sent] ^= 0x08
                    sent += len(data)
                    os.write(master, bytes(data))
        except BaseException as e:  # reported by the test, not lost in the thread
            errors.append(e)

    thread = threading.Thread(target=bridge, daemon=True)
    if simulated:
        thread.start()
    try:
        yield os.ttyname(slave)
    finally:
        stop.set()
        if simulated:
            thread.join(timeout=60)  # a hang guard: idle the bridge sees the stop within ms
        os.close(master)
        os.close(slave)
    assert not errors, errors


def run_cli(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_moves_over_a_serial_port(capsys):
    fen = STANDARD_POSITIONS[2].fen
    with pty_board() as port:
        status, out, err = run_cli(["board", "--port", port, "--timeout", "20", "--json",
                                    "--fen", fen], capsys)
    assert status == 0 and err == "", err
    data = json.loads(out)
    assert data["match"] is True and data["port"] == port
    assert data["cycles"] == compiled_cycles(Board(fen))


def test_perft_over_a_serial_port(capsys):
    with pty_board() as port:
        status, out, err = run_cli(["board", "perft", "--port", port, "--timeout", "20",
                                    "--depth", "3", "--plain", "--quiet", "--fen",
                                    BY_NAME["kiwipete"].fen], capsys)
    assert status == 0 and err == "", err
    assert "leaves 97,862" in out and "match  yes: the published count" in out
    assert "self-test passed" in out.splitlines()[0]


def test_a_garbled_reply_on_the_serial_port_is_a_one_line_error(capsys):
    """A bit flipped on the line in the PING reply's payload: the CRC catches it."""
    with pty_board(corrupt_at=6) as port:
        status, out, err = run_cli(["board", "ping", "--port", port, "--timeout", "20"], capsys)
    assert status == 2 and out == "" and len(err.splitlines()) == 1, err
    assert f"the PING reply from {port} failed its CRC check" in err


def test_silent_serial_port_is_a_one_line_error(capsys):
    with pty_board(simulated=False) as port:
        status, out, err = run_cli(["board", "--port", port, "--timeout", "0.2"], capsys)
    assert status == 2 and out == "" and len(err.splitlines()) == 1, err
    assert f"the PING reply did not arrive from {port} within 0.2 s" in err


def test_missing_port_is_a_one_line_error(capsys):
    status, out, err = run_cli(["board", "--port", "/dev/posdata-no-such-port", "--timeout",
                                "0.1"], capsys)
    assert status == 2 and out == ""
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert err.startswith("posdata: error: cannot open serial port /dev/posdata-no-such-port")


@pytest.mark.parametrize("argv, word", [
    (["board"], "--port"),
    (["board", "--port", "x", "--target", "cxxrtl"], "--port goes with --target board"),
    (["board", "--target", "pysim", "--target", "nope"], "invalid choice"),
    (["board", "--target", "cxxrtl", "--baud", "fast"], "--baud"),
    (["board", "--target", "cxxrtl", "--baud", "9600"], "--baud goes with --target board"),
    (["board", "--target", "cxxrtl", "--timeout", "0"], "--timeout"),
    (["board", "--target", "pysim", "--timeout", "5"], "--timeout goes with --target board"),
    (["board", "jump", "--target", "cxxrtl"], "invalid choice"),
    (["board", "perft", "--target", "cxxrtl", "--depth", "13"],
     "--depth must be between 0 and 12"),
    (["board", "perft", "--target", "cxxrtl", "--depth", "3", "--split", "3"],
     "--split must be at most 2"),
    (["board", "perft", "--target", "cxxrtl", "--bulk", "--plain"], "not allowed"),
    (["board", "perft", "--target", "cxxrtl", "--limit", "-1"], "--limit"),
    (["board", "--target", "cxxrtl", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"], "king"),
    # issue 30 (6): one vocabulary, the older spellings one line that names the new one
    (["board", "--sim"], "--sim is now --target cxxrtl"),
    (["board", "--pysim"], "--pysim is now --target pysim"),
    (["board", "--target", "pysim", "--sim-board", "icebreaker"], "--sim-board is now --board"),
    (["board", "--port", "x", "--board", "icebreaker"], "--board goes with --target cxxrtl"),
    # issue 30 (7): an option the action does not read is refused, not ignored
    (["board", "moves", "--target", "cxxrtl", "--plain"], "--plain goes with board perft"),
    (["board", "ping", "--target", "cxxrtl", "--depth", "2"], "--depth goes with board perft"),
    (["board", "status", "--target", "cxxrtl", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"],
     "--fen goes with board moves or legal or perft"),
])
def test_bad_arguments(argv, word, capsys):
    status, out, err = run_cli(argv, capsys)
    assert status == 2 and out == "" and len(err.splitlines()) == 1, err
    assert word in err and "Traceback" not in err


def test_sim_moves_json(capsys):
    status, out, err = run_cli(["board", "--target", "verilator", "--moves", "e2e4", "d7d5",
                                "--json"], capsys)
    board = Board()
    board.push_uci("e2e4")
    board.push_uci("d7d5")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert set(data) == {"fen", "moves", "cycles", "match", "port"}
    assert data["match"] is True and data["port"] == "verilator" and data["fen"] == board.fen()
    assert data["cycles"] == compiled_cycles(board)
    assert data["moves"] == [move_uci(m) for m in board.moves()]


def test_sim_legal_json(capsys):
    fen = "r3k2r/1P4P1/8/2pP4/8/8/1p4p1/R3K2R w KQkq c6 0 1"  # promotions, castling, en passant
    status, out, err = run_cli(["board", "legal", "--target", "verilator", "--fen", fen, "--json"],
                               capsys)
    assert status == 0 and err == ""
    data = json.loads(out)
    assert data["match"] is True
    assert sorted(data["moves"]) == sorted(move_uci(m) for m in Board(fen).legal_moves())


def test_sim_perft_json_and_text(capsys):
    status, out, err = run_cli(["board", "perft", "--target", "verilator", "--depth", "3",
                                "--json"], capsys)
    assert status == 0 and err == ""
    data = json.loads(out)
    # plain unless asked, as perft and compare count (issue 30, 7)
    assert (data["leaves"], data["expected"], data["match"], data["bulk"], data["split"]) == (
        8902, 8902, True, False, 2)
    assert data["clocks"] > 0 and data["port"] == "verilator"
    status, out, err = run_cli(["board", "perft", "--target", "verilator", "--depth", "2",
                                "--plain", "--split", "0", "--moves", "e2e4"], capsys)
    assert status == 0 and err == ""
    assert "perft  depth 2, plain, split ply 0" in out
    assert "match  not checked (no published count)" in out and "leaves 600" in out


def test_sim_status_ping_and_abort(capsys):
    status, out, err = run_cli(["board", "ping", "--target", "verilator", "--json"], capsys)
    assert status == 0 and json.loads(out) == {
        "version": 4, "engines": 1, "threads": 2, "variant": 0, "self_test": "running",
        "port": "verilator"}
    status, out, err = run_cli(["board", "status", "--target", "verilator", "--json"], capsys)
    data = json.loads(out)
    assert status == 0 and (data["state"], data["self_test"], data["depth"]) == (
        "running", True, 4)
    status, out, err = run_cli(["board", "abort", "--target", "verilator"], capsys)
    assert status == 0 and "self-test passed" in out and "state  done" in out


def test_pysim_runs_the_board_it_is_told(capsys):
    """``--board icebreaker`` under Amaranth's simulator runs the iCEBreaker's design (the
    generator alone: no engines), not the ULX3S's silently (issue 30, 6)."""
    status, out, err = run_cli(["board", "ping", "--target", "pysim", "--board", "icebreaker",
                                "--json"], capsys)
    assert status == 0 and err == "", err
    data = json.loads(out)
    assert (data["engines"], data["threads"], data["port"]) == (0, 0, "pysim")
    status, out, err = run_cli(["board", "ping", "--target", "pysim"], capsys)
    assert status == 0 and "the simulated ulx3s-25f board" in out and "1 engine(s)" in out
