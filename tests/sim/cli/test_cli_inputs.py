"""Numbers are checked for range and finiteness where they enter (common.int_in_range,
float_in_range); a FEN's counters and an EPD suite's depths and counts are bounded; a bad one
is one line naming it, exit status 2, before any work."""

import json

import pytest

from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.hdl.common.contract import MAX_DEPTH
from posdata.sim.cli import main
from posdata.sim.runs.perft_suite import MAX_NODES

HUGE = "9" * 5000  # past Python's 4,300-digit limit on int()
START = STANDARD_POSITIONS[0].fen


@pytest.fixture
def no_work(monkeypatch):
    """Synthesis and the board's link fail the test if a bad number reaches them."""
    def never(*args, **kwargs):
        raise AssertionError("a bad number reached the work")
    monkeypatch.setattr("posdata.hdl.boards.synth.synthesize", never)
    monkeypatch.setattr("posdata.sim.cli.board_cmd.open_transport", never)


def one_line(capsys, *words):
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and len(lines) == 1 and lines[0].startswith("posdata: error: "), err
    assert len(lines[0]) < 300, "the input is quoted cut short"
    for word in words:
        assert word.lower() in lines[0].lower(), err


@pytest.mark.parametrize("argv, word", [
    *[(["perft", "--depth", "1", "--mhz", v], "--mhz")
      for v in ("nan", "inf", "-inf", "1e-320", "-1", "0", "1e309", HUGE, "fast")],
    (["compare", "--mhz", "nan"], "--mhz"),
    (["synth", "--mhz", "nan"], "--mhz"),
    (["synth", "--mhz", "0.5"], "--mhz"),
    (["synth", "--baud", "0"], "--baud"),
    (["synth", "--baud", "-3000000"], "--baud"),
    (["synth", "--engines", "0"], "--engines"),
    (["synth", "--seed", "-1"], "--seed"),
    (["synth", "--seeds", "0"], "--seeds"),
    (["synth", "--seeds", HUGE], "--seeds"),
    (["export", "--verilog", "x.v", "--design", "board", "--divisor", "1"], "--divisor"),
    (["export", "--verilog", "x.v", "--design", "board", "--divisor", HUGE], "--divisor"),
    (["board", "--target", "cxxrtl", "--timeout", "inf"], "--timeout"),
    (["board", "--target", "cxxrtl", "--timeout", "nan"], "--timeout"),
    (["board", "perft", "--target", "cxxrtl", "--limit", "inf"], "--limit"),
    (["perft", "--depth", HUGE], "--depth"),
    (["perft", "--depth", "\u0663"], "--depth"),  # an Arabic-Indic 3: int() reads it
    (["perft", "-j", "0"], "--jobs"),
    (["search", "--movetime", "1e3"], "--movetime"),
    (["perftree", HUGE, START], "DEPTH"),
    (["compare", "--random", "-1"], "--random"),
])
def test_bad_number_is_one_line(capsys, no_work, tmp_path, monkeypatch, argv, word):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    one_line(capsys, word)


@pytest.mark.parametrize("argv", [["synth", "--seed", "1", "--seeds", "2"],
                                  ["synth", "--seeds", "2", "--seed", "5"]])
def test_seed_and_seeds_are_one_or_the_other(capsys, no_work, argv):
    """--seeds builds with seeds 1..N, so a --seed beside it was ignored; `--seed 1` too is
    refused (argparse sees no conflict in a value that is the option's default object)."""
    assert main(argv) == 2
    one_line(capsys, "--seed", "--seeds", "not allowed with")


def test_a_good_clock_is_used(capsys):
    assert main(["perft", "--depth", "1", "--mhz", "0.001", "--backend", "gen", "--target",
                 "pysim", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["nodes"] == 20 and out["clock"]["mhz"] == 0.001


def test_a_damaged_report_gives_no_clock(tmp_path):
    """A report.json whose Fmax is nan, inf or 0 is no clock (not 'hw time nan s')."""
    from posdata.sim.cli.clock import Gateware, clock_for
    for i, fmax in enumerate(("NaN", "Infinity", "0", "-5")):
        d = tmp_path / "synth" / f"b{i}"
        d.mkdir(parents=True)
        (d / "report.json").write_text(f'{{"fmax_mhz": {fmax}}}')
    assert clock_for(Gateware("generator"), build_dir=str(tmp_path)) is None


@pytest.mark.parametrize("counters, word", [
    (f"0 {HUGE}", "fullmove"), (f"{HUGE} 1", "halfmove"), ("0 10000", "fullmove"),
    ("10000 1", "halfmove"), ("-1 1", "halfmove"), ("0 -1", "fullmove"),
])
@pytest.mark.parametrize("command", [["perft", "--depth", "1"], ["moves"], ["search", "--depth",
                                     "1"], ["sim"], ["perftree", "1"]])
def test_fen_counters_bounded_in_every_command(capsys, command, counters, word):
    fen = " ".join(START.split()[:4]) + " " + counters
    argv = command + [fen] if command[0] == "perftree" else command + ["--fen", fen]
    assert main(argv) == 2
    one_line(capsys, word, "9999")


@pytest.mark.parametrize("command", [["perft", "--depth", "1"], ["moves"], ["search", "--depth",
                                     "1"], ["sim"], ["perftree", "1"]])
def test_impossible_position_refused_in_every_command(capsys, command):
    fen = "4k3/8/8/8/1b5b/8/3n4/r3K2r w - - 0 1"  # Ra1, Rh1 and Bh4 give check
    argv = command + [fen] if command[0] == "perftree" else command + ["--fen", fen]
    assert main(argv) == 2
    one_line(capsys, "impossible position: 3 pieces give check", "a1, h1, h4")


def suite(tmp_path, text: str | bytes) -> str:
    path = tmp_path / "s.epd"
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
    return str(path)


@pytest.mark.parametrize("counts, words", [
    (";D1 20 ;D1 21", ["line 2", "D1 given twice", "20", "21"]),
    (";D1 20 ;D2 400 ;D1 20", ["line 2", "D1 given twice"]),
    (f";D{MAX_DEPTH + 1} 1", ["line 2", f"D{MAX_DEPTH + 1}", "deeper than 12"]),
    (";D99 1", ["line 2", "D99", "deeper"]),
    (";D00099 1", ["line 2", "D99", "deeper"]),
    (f";D{HUGE} 1", ["line 2", "deeper"]),
    (f";D1 {HUGE}", ["line 2", "2**64"]),
    (f";D1 {MAX_NODES + 1}", ["line 2", "2**64"]),
    (";D0 1", ["line 2", "not a count"]),
    (";D\u0663 5", ["line 2", "not a count"]),
    (";D1 twenty", ["line 2", "not a count"]),
    (";D1 -20", ["line 2", "not a count"]),
])
def test_bad_suite_counts(tmp_path, capsys, counts, words):
    path = suite(tmp_path, f"# a suite\n{START} {counts}\n")
    assert main(["perft", "--epd", path]) == 2
    one_line(capsys, path, *words)


@pytest.mark.parametrize("text, words", [
    (b"\n\n" + START.encode() + b" ;D1 20\xff\n", ["line 3", "UTF-8"]),
    (f"{START} ;D1 20\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - {HUGE} 1 ;D1 20\n",
     ["line 2", "halfmove"]),
    (f"{START} ;D1 20\nnot a fen ;D1 20\n", ["line 2", "FEN"]),
    (f"{START} ;D1 20\n4k3/8/8/8/8/8/8/r3K2r w - - ;D1 1\n", ["line 2", "both sides"]),
    (f"{START} ;D1 20\n{START}\n", ["line 2", "no counts"]),
])
def test_malformed_suite_line_named(tmp_path, capsys, text, words):
    path = suite(tmp_path, text)
    assert main(["perft", "--epd", path]) == 2
    one_line(capsys, path, *words)


def test_deeper_counts_skipped_with_max_depth(tmp_path, capsys):
    """A suite with counts past --depth's limit runs with --max-depth: those are skipped."""
    path = suite(tmp_path, f"{START} ;D1 20 ;D2 400 ;D13 1 ;D99 1\n")
    assert main(["perft", "--quiet", "--json", "--epd", path, "--max-depth", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["depth"] for c in data["counts"]] == [1, 2] and data["skipped"] == 2


def test_byte_order_mark_accepted(tmp_path, capsys):
    path = suite(tmp_path, b"\xef\xbb\xbf" + START.encode() + b" ;D1 20\r\n")
    assert main(["perft", "--quiet", "--json", "--epd", path]) == 0
    assert json.loads(capsys.readouterr().out)["counts"][0]["nodes"] == 20


def test_endless_suite_file_is_refused(capsys):
    assert main(["perft", "--epd", "/dev/zero"]) == 2
    one_line(capsys, "/dev/zero", "MiB")
