"""The ``posdata`` CLI: every bad input gives one line on stderr naming the problem and exit
status 2 (no traceback); ``--json`` output has the documented shape."""

import json
import subprocess
import sys

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import START_FEN, move_uci
from posdata.sim.cli import main
from tests.engine.rules.test_fen import BAD_FENS

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

#: (argv, a word the error line must contain), besides the bad FENs
BAD_ARGS = [
    (["perft", "--depth", "-1"], "--depth"),
    (["perft", "--depth", "13"], "--depth"),
    (["perft", "--depth", "two"], "--depth"),
    (["perft", "--depth", "2.5"], "--depth"),
    (["perft", "--depth"], "--depth"),
    (["perft", "--moves", "e2e5"], "e2e5"),
    (["perft", "--moves", "e2e4", "e2e4"], "e2e4"),
    (["moves", "--moves", "e1g1"], "e1g1"),
    (["moves", "--moves", "zz"], "zz"),
    (["moves", "--moves", "e7e8q"], "e7e8q"),
    (["moves", "--depth", "2"], "unrecognized"),
    (["frobnicate"], "frobnicate"),
    (["perft", "--fen"], "--fen"),
]


def run_cli(argv, capsys) -> tuple[int, str, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line_error(status, out, err, word):
    assert status == 2
    assert out == ""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("posdata: error: "), err
    assert word.lower() in lines[0].lower(), err


@pytest.mark.parametrize("fen, word", BAD_FENS)
@pytest.mark.parametrize("command", ["perft", "moves"])
def test_bad_fen(command, fen, word, capsys):
    argv = [command, "--fen", fen] + (["--depth", "1"] if command == "perft" else [])
    assert_one_line_error(*run_cli(argv, capsys), word)


@pytest.mark.parametrize("argv, word", BAD_ARGS)
def test_bad_arguments(argv, word, capsys):
    assert_one_line_error(*run_cli(argv, capsys), word)


@pytest.mark.parametrize("argv, word", [
    (["perft", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"], "kings"),
    (["perft", "--depth", "99"], "--depth"),
    (["moves", "--moves", "e2e5"], "e2e5"),
])
def test_bad_input_in_a_real_process(argv, word):
    """The same through ``python -m posdata.sim``: exit status and stderr of the process itself."""
    proc = subprocess.run([sys.executable, "-m", "posdata.sim", *argv], capture_output=True,
                          text=True, timeout=60)  # a hang guard: idle ~0.15 s
    assert_one_line_error(proc.returncode, proc.stdout, proc.stderr, word)


def test_no_command_is_status_2(capsys):
    status, out, err = run_cli([], capsys)
    assert status == 2 and out == "" and "perft" in err


def test_perft_json(capsys):
    status, out, err = run_cli(["perft", "--depth", "2", "--json"], capsys)
    assert status == 0 and err == ""
    obj = json.loads(out)
    assert {"fen", "depth", "nodes", "seconds", "nps"} <= set(obj)  # "at least" (issue 2)
    assert "divide" not in obj  # only when asked
    assert obj["fen"] == START_FEN and obj["depth"] == 2 and obj["nodes"] == 400
    assert isinstance(obj["seconds"], float) and isinstance(obj["nps"], int)
    assert out.count("\n") == 1


def test_perft_json_divide(capsys):
    status, out, _ = run_cli(["perft", "--fen", KIWIPETE, "--depth", "2", "--divide", "--json"],
                             capsys)
    assert status == 0
    obj = json.loads(out)
    assert obj["nodes"] == 2039 and obj["fen"] == KIWIPETE
    divide = obj["divide"]
    assert len(divide) == 48 and sum(divide.values()) == 2039
    assert divide["e1g1"] == 43 and divide["e1c1"] == 43
    assert list(divide) == [move_uci(m) for m in Board(KIWIPETE).legal_moves()]


def test_perft_text_and_moves_option(capsys):
    status, out, _ = run_cli(["perft", "--depth", "3", "--moves", "e2e4", "e7e5"], capsys)
    assert status == 0
    assert "nodes  " in out and out.split("nodes")[1].split()[0] == "24825"  # python-chess
    assert "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2" in out


def test_perft_depth_zero(capsys):
    status, out, _ = run_cli(["perft", "--depth", "0", "--json"], capsys)
    assert status == 0 and json.loads(out)["nodes"] == 1


def test_moves_json(capsys):
    status, out, err = run_cli(["moves", "--json"], capsys)
    assert status == 0 and err == ""
    obj = json.loads(out)
    assert {"fen", "moves"} <= set(obj)
    assert obj["fen"] == START_FEN
    assert obj["moves"] == [move_uci(m) for m in Board().moves()]
    assert obj["moves"][:6] == ["b1a3", "b1c3", "g1f3", "g1h3", "a2a3", "a2a4"]  # order
    assert len(obj["moves"]) == 20


def test_moves_json_castling_and_promotion(capsys):
    fen = "r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1"
    status, out, _ = run_cli(["moves", "--fen", fen, "--json"], capsys)
    assert status == 0
    moves = json.loads(out)["moves"]
    assert moves[-2:] == ["e1g1", "e1c1"]  # castling last, king side first
    assert moves.index("b7b8q") + 1 == moves.index("b7b8r")
    assert {"b7a8q", "b7a8n", "b7b8b"} <= set(moves)


def test_moves_text(capsys):
    status, out, _ = run_cli(["moves", "--fen", KIWIPETE], capsys)
    assert status == 0
    assert "48 pseudo-legal" in out
    assert "e1g1 castle" in out


def test_the_chip_clock_skips_generator_only_reports(tmp_path):
    """bench-chip's default clock: the newest ULX3S report of a build with perft engines, not a
    newer report of the generator alone."""
    import json
    import os

    from posdata.sim.cli.clock import Gateware, clock_for

    def latest_fmax(build_dir, perft_chip=False):
        clock = clock_for(Gateware("chip" if perft_chip else "generator"), build_dir=build_dir)
        return clock.mhz if clock else None

    for name, report, mtime in (("a", {"fmax_mhz": 90.81, "engines": 1}, 1_000),
                                ("b", {"fmax_mhz": 98.54, "design": "generator"}, 2_000)):
        d = tmp_path / "synth" / name
        d.mkdir(parents=True)
        (d / "report.json").write_text(json.dumps(report))
        os.utime(d / "report.json", (mtime, mtime))
    assert latest_fmax(str(tmp_path)) == 98.54
    assert latest_fmax(str(tmp_path), perft_chip=True) == 90.81
    assert latest_fmax(str(tmp_path / "none"), perft_chip=True) is None
