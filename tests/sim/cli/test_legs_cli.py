"""Muller's legs from the outside (issue 29): `posdata walk` lists a walk with modes entry by
entry and walks a definition typed in, `posdata variants` lists the variants with their
definitions, and what cannot run a variant or hold a definition says so in one line, exit 2."""

import json

import pytest

from posdata.engine.rules.variants import VARIANT_NAMES
from posdata.sim.cli import main


def run_cli(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def entry_rows(out: str) -> list[list[str]]:
    rows = []
    for line in out.splitlines():
        words = line.split()
        if words and words[0].isdigit() and len(words[1]) == 2 and words[1][0] in "abcdefgh":
            rows.append(words)
    return rows


def test_walk_lists_a_grasshopper_s_screens_and_landings(capsys):
    status, out, _ = run_cli(["walk", "--variant", "grasshopper", "--piece", "G",
                              "--square", "d4"], capsys)
    assert status == 0 and "38 entries" in out
    rows = entry_rows(out)
    # east from d4: a screen on e4 lands on f4, on f4 lands on g4, on g4 lands on h4
    assert [r[:3] for r in rows[:6]] == [["1", "e4", "pass"], ["2", "f4", "both"],
                                         ["3", "f4", "pass"], ["4", "g4", "both"],
                                         ["5", "g4", "pass"], ["6", "h4", "both"]]


def test_walk_lists_a_lame_leap_and_a_berolina_pawn(capsys):
    status, out, _ = run_cli(["walk", "--moves", "nN", "--square", "a1"], capsys)
    assert status == 0
    # the xiangqi horse: b1 must be empty for c2, a2 for b3
    assert [r[:3] for r in entry_rows(out)] == [["1", "b1", "pass"], ["2", "c2", "both"],
                                                ["3", "a2", "pass"], ["4", "b3", "both"]]
    status, out, _ = run_cli(["walk", "--variant", "berolina", "--piece", "P", "--square", "d2"],
                             capsys)
    assert status == 0
    rows = [r[:3] for r in entry_rows(out)]
    assert ["1", "c3", "quiet"] in rows and ["7", "d3", "capture"] in rows
    assert any(r[1] == "b4" and r[2] == "quiet" for r in rows)  # the double step


def test_walk_writes_an_svg_of_a_walk_with_modes(tmp_path, capsys):
    svg = tmp_path / "g.svg"
    status, _, _ = run_cli(["walk", "--variant", "hoppelpoppel", "--piece", "n", "--square",
                            "e5", "--svg", str(svg)], capsys)
    assert status == 0 and svg.read_text().startswith("<svg") and "capture" in svg.read_text()


@pytest.mark.parametrize("definition, words", [
    ("jN", "multi-leg"), ("pN", "needs a rider"), ("Qn", "unknown atom"), ("RW", "both reach"),
    ("iW", "pawn's modifier"),
])
def test_a_definition_a_walk_cannot_hold_is_refused_in_one_line(definition, words, capsys):
    status, out, err = run_cli(["walk", "--moves", definition, "--square", "d4"], capsys)
    assert status == 2 and out == ""
    assert err.startswith("posdata: error:") and words in err and err.count("\n") == 1


def test_variants_lists_every_variant_with_its_definitions(capsys):
    status, out, _ = run_cli(["variants", "--json"], capsys)
    assert status == 0
    rows = {r["name"]: r for r in json.loads(out)["variants"]}
    assert list(rows) == list(VARIANT_NAMES)
    assert {p["moves"] for p in rows["hoppelpoppel"]["pieces"]} >= {"mNcB", "mBcN"}
    assert {"sw", "gen", "hw"} <= set(rows["chess"]["runs_on"])
    # the walker follows modes, and a board takes en passant's victim with the position
    assert rows["grasshopper"]["runs_on"] == ["sw", "gen", "hw", "ecp5"]
    assert rows["berolina"]["runs_on"] == ["sw", "gen", "hw", "ecp5"]
    status, out, _ = run_cli(["variants"], capsys)
    assert status == 0 and "G grasshopper gQ" in out and "S khon FfW" in out


def test_a_board_refuses_a_variant_with_modes_in_one_line(capsys):
    """The perft chip counts the variants with modes (tests/hdl/chip/test_chip_modes.py); a
    board does not (the host does not check a board's variant yet)."""
    status, out, err = run_cli(["perft", "--variant", "makruk", "--backend", "hw",
                                "--target", "board", "--port", "/dev/null", "--depth", "1"],
                               capsys)
    assert status == 2 and out == "" and "makruk" in err and err.count("\n") == 1


@pytest.mark.parametrize("mode", ["--bulk", "--plain"])
def test_the_chip_counts_a_variant_with_modes(mode, capsys):
    """perft --backend both --variant: Berolina's en passant, its victim beside the square
    passed, counted on the chip in Amaranth's simulator (one for both runs) equal to the
    software."""
    fen = "4k3/2p1p3/8/1P1P1P2/8/8/8/4K3 b - - 0 1"
    status, out, err = run_cli(["perft", "--variant", "berolina", "--fen", fen, "--backend",
                                "both", "--target", "pysim", "--depth", "2", mode, "--json"],
                               capsys)
    result = json.loads(out)
    assert status == 0, err
    assert result["match"] and result["nodes"] == result["sw_nodes"] == 140, result


def test_the_simulator_runs_a_variant_with_modes(capsys):
    """Amaranth's simulator walks Berolina's pawns (the walk image, hdl.gen.legs)."""
    status, out, err = run_cli(["sim", "--variant", "berolina"], capsys)
    assert status == 0 and err == "" and "Pe2" in out


@pytest.mark.parametrize("backend", ["sw", "hw"])
def test_moves_applies_the_bare_king_rule_on_either_backend(backend, capsys):
    """Shatranj's bare king ends the game: the reference lists no moves, and the generator's
    moves are dropped by the same host rule (perft applies it too), the clocks still shown."""
    fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"
    status, out, err = run_cli(["moves", "--variant", "shatranj", "--fen", fen,
                                "--backend", backend, "--json"], capsys)
    result = json.loads(out)
    assert status == 0 and err == ""
    assert result["moves"] == [] and result["ended"] == "bare king"
    assert ("cycles" in result) == (backend == "hw")
    status, out, err = run_cli(["moves", "--variant", "shatranj", "--fen",
                                fen.replace(" w ", " b "), "--backend", backend, "--json"],
                               capsys)
    assert status == 0 and json.loads(out)["moves"] and "ended" not in json.loads(out)
