"""posdata search --backend hw|both --target board: the host's search over a search board
(hdl.link.search_frontend in Amaranth's simulator behind a pseudo-terminal, through pyserial)
equals it over the reference; a perft board on the port is refused in one line."""

import json

import pytest

from posdata.hdl.link.protocol import DEFAULT_BAUD, UART_FRAME_BITS
from posdata.hdl.link.search_frontend import SearchFrontEnd
from posdata.sim.cli import main
from posdata.sim.drivers import fpga_board
from posdata.sim.drivers.fpga_board_sim import SimulatedTransport
from tests.sim.cli.test_board_cli import pty_board

FEN = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"


def search_board(threads: int = 1) -> SimulatedTransport:
    return SimulatedTransport(front_end=SearchFrontEnd(4, frame_timeout=64 * UART_FRAME_BITS * 4,
                                                       threads=threads),
                              watchdog=200_000)


def run_json(capsys, *argv):
    code = main(["search", "--fen", FEN, *argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def patient(monkeypatch):
    # Amaranth's simulator answers in seconds where a board takes microseconds: pyserial's
    # reads are given 30 s
    original = fpga_board.SerialTransport.__init__

    def init(self, port, baud=DEFAULT_BAUD, timeout=1.0):
        original(self, port, baud, timeout=30.0)
    monkeypatch.setattr(fpga_board.SerialTransport, "__init__", init)


@pytest.mark.slow
def test_the_host_search_over_a_search_board(capsys, monkeypatch):
    patient(monkeypatch)
    sw = run_json(capsys, "--backend", "sw", "--depth", "2", "--chip-depth", "1")
    with pty_board(board=search_board(), chunk=200) as port:
        hw = run_json(capsys, "--backend", "hw", "--depth", "2", "--chip-depth", "1",
                      "--target", "board", "--port", port, "--mhz", "21")
    for key in ("score", "bestmove", "pv", "nodes"):
        assert hw[key] == sw[key], key
    assert hw["hw_nodes"] > 0 and hw["hw_cycles"] > 0 and hw["mhz"] == 21


@pytest.mark.slow
def test_the_host_search_over_two_threads_of_a_search_board(capsys, monkeypatch):
    patient(monkeypatch)
    sw = run_json(capsys, "--backend", "sw", "--depth", "2", "--chip-depth", "0")
    with pty_board(board=search_board(threads=2), chunk=200) as port:
        hw = run_json(capsys, "--backend", "hw", "--depth", "2", "--chip-depth", "0",
                      "--target", "board", "--port", port, "--mhz", "21", "--threads", "2")
    for key in ("score", "bestmove", "pv"):  # host_parallel's rule: nodes may differ
        assert hw[key] == sw[key], key
    assert hw["threads"] == 2 and hw["hw_nodes"] > 0 and hw["hw_parallel_cycles"] > 0


def test_more_threads_than_the_board_has_are_refused(capsys, monkeypatch):
    patient(monkeypatch)
    with pty_board(board=search_board(), chunk=200) as port:
        code = main(["search", "--fen", FEN, "--backend", "hw", "--depth", "1",
                     "--target", "board", "--port", port, "--threads", "2"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "has 1 search thread " in err and "\n" not in err


def test_a_perft_board_is_refused(capsys):
    with pty_board() as port:
        code = main(["search", "--fen", FEN, "--backend", "hw", "--depth", "1",
                     "--target", "board", "--port", port])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "carries the perft chip" in err and "\n" not in err


def test_board_options_refused_where_they_do_not_apply(capsys):
    for argv, said in ((["--backend", "sw", "--target", "board", "--port", "/dev/null"],
                        "--target goes with --backend gen, hw or both"),
                       (["--backend", "hw", "--target", "board"], "needs --port"),
                       (["--backend", "hw", "--target", "pysim"], "not --target pysim"),
                       (["--backend", "both", "--target", "board", "--port", "/dev/null",
                         "--threads", "2"], "--threads goes with --backend sw or hw")):
        assert main(["search", "--depth", "1", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert said in err and "\n" not in err, (argv, err)
