"""One vocabulary and one set of defaults across the subcommands (issue 30, items 6 and 7):
``--target`` everywhere, the older ``--sim`` a one-line error naming it; the same default depth,
counting mode and ``-j``; an option that does not apply is an error, not ignored."""

import json

import pytest

from posdata.sim.cli import build_parser, main

#: the default depth everywhere (sim.cli.common.DEFAULT_DEPTH)
DEFAULT_DEPTH = 3


def one_line_error(argv, capsys, *words) -> str:
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and len(err.splitlines()) == 1, (status, out, err)
    assert "Traceback" not in err
    for word in words:
        assert word in err, err
    return err


@pytest.mark.parametrize("argv", [
    ["perft", "--backend", "gen", "--sim", "pysim"],
    ["perft", "--sim=pysim"],
    ["moves", "--backend", "hw", "--sim", "pysim"],
    ["compare", "--sim", "cxxrtl"],
    ["search", "--depth", "1", "--sim", "pysim"],
    ["uci", "--sim", "pysim"],
])
def test_the_older_sim_is_one_line_naming_target(argv, capsys):
    one_line_error(argv, capsys, f"{argv[0]}: --sim is now --target")


@pytest.mark.parametrize("command", ["perft", "moves", "compare", "search", "uci", "board"])
def test_help_names_target_not_sim(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "--target" in out and "--sim " not in out and "--sim," not in out
    assert "--pysim" not in out and "--sim-board" not in out


@pytest.mark.parametrize("argv, words", [
    (["perft", "--target", "pysim"], ["--target goes with --backend gen, hw or both"]),
    (["perft", "--backend", "sw", "--port", "/dev/null"], ["--port goes with --backend"]),
    (["perft", "--baud", "9600"], ["--baud goes with --backend"]),
    (["perft", "--backend", "gen", "--target", "pysim", "--baud", "9600"],
     ["--baud goes with --target board"]),
    (["moves", "--target", "cxxrtl"], ["--target goes with --backend hw"]),
    (["perft", "--mhz", "50"], ["--mhz goes with --backend gen, hw or both"]),
    (["perft", "--bulk", "--plain"], ["not allowed"]),
    (["compare", "--bulk", "--plain"], ["not allowed"]),
])
def test_an_option_that_does_not_apply_is_an_error(argv, words, capsys):
    one_line_error(argv, capsys, *words)


def test_depth_with_a_suite_is_an_error(tmp_path, capsys):
    suite = tmp_path / "suite.epd"
    suite.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ;D1 20\n")
    one_line_error(["perft", "--epd", str(suite), "--depth", "2"], capsys,
                   "--depth goes without --epd")
    assert main(["perft", "--epd", str(suite), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mismatches"] == 0


def test_perft_defaults(capsys):
    """perft: depth 3, plain; --plain says so."""
    from posdata.sim.cli.common import DEFAULT_DEPTH as default
    assert default == DEFAULT_DEPTH
    assert main(["perft", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["depth"], out["bulk"], out["nodes"]) == (3, False, 8902)
    assert main(["perft", "--plain", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bulk"] is False


def test_compare_defaults(monkeypatch, capsys):
    """compare: depth 3, plain, one job (was one Dask worker per core for gen)."""
    from posdata.sim.cli import compare_cmd
    seen = {}

    def table(depths, target, jobs, clock, **kwargs):
        seen.update(depths=set(depths.values()), jobs=jobs, bulk=kwargs["bulk"])
        return []

    monkeypatch.setattr(compare_cmd, "compare_table", table)
    for backend in ("gen", "hw"):
        seen.clear()
        assert main(["compare", "--backend", backend, "--json"]) == 0
        capsys.readouterr()
        assert seen == {"depths": {DEFAULT_DEPTH}, "jobs": 1, "bulk": False}, backend


def test_board_perft_defaults():
    """board perft: depth 3 and plain, as perft and compare (it counted bulk to depth 4)."""
    from posdata.sim.cli.board_cmd import check_options
    args = build_parser("board").parse_args(["board", "perft", "--target", "cxxrtl"])
    check_options(args)
    assert (args.depth, args.bulk, args.target) == (DEFAULT_DEPTH, False, "cxxrtl")
    args = build_parser("board").parse_args(["board", "perft", "--port", "x", "--bulk"])
    check_options(args)
    assert (args.bulk, args.target) == (True, "board")
