"""``posdata perft --epd FILE --backend hw|both``: a suite (written here from the published counts,
engine.rules.positions) counted on the perft chip, each count checked, its clocks those of the chip
counting the position by itself; with both, the software's count beside it; a wrong count and a
faulty chip name the line, the depth, the FEN and what differs; options that do not apply are one
line."""

import json

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.perft import perft
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.sim.cli import main
from posdata.sim.drivers.targets import chip_default, make_chip
from posdata.sim.runs import chip_perft
from tests.sim.runs.test_chip_perft import HidingChip


def write_suite(tmp_path, rows) -> str:
    """``rows``: (FEN, {depth: count}) a line each."""
    path = tmp_path / "chip.epd"
    path.write_text("".join(fen + "".join(f" ;D{d} {n}" for d, n in counts.items()) + "\n"
                            for fen, counts in rows))
    return str(path)


def standard_suite(tmp_path, wrong: tuple[int, int] | None = None) -> str:
    """The standard positions to depth 2; ``wrong`` = (line, depth) off by one."""
    return write_suite(tmp_path, [
        (pos.fen, {d: n + ((line, d) == wrong) for d, n in enumerate(pos.counts[:2], 1)})
        for line, pos in enumerate(STANDARD_POSITIONS, 1)])


def run(argv, capsys):
    status = main(["perft", "--quiet", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_suite_on_the_chip_checked_and_clocked(tmp_path, capsys):
    status, out, err = run(["--epd", standard_suite(tmp_path), "--backend", "hw", "--bulk",
                            "--json"], capsys)
    assert status == 0, err
    data = json.loads(out)
    assert data["mismatches"] == 0 and data["sim"] == chip_default()
    chip = make_chip(chip_default())
    want = []
    for line, pos in enumerate(STANDARD_POSITIONS, 1):
        for d, n in enumerate(pos.counts[:2], 1):
            count = chip.perft(Board(pos.fen), d, True)  # the clocks' oracle: one count here
            want.append((line, d, n, count.clocks))
    got = [(c["line"], c["depth"], c["nodes"], c["hw_cycles"]) for c in data["counts"]]
    assert got == want and data["hw_cycles"] == sum(w[3] for w in want)


def test_a_wrong_count_names_line_depth_and_fen(tmp_path, capsys):
    status, out, _ = run(["--epd", standard_suite(tmp_path, wrong=(3, 2)), "--backend", "both"],
                         capsys)
    pos = STANDARD_POSITIONS[2]
    assert status == 1
    bad = [line for line in out.splitlines() if line.startswith("MISMATCH")]
    assert bad == [f"MISMATCH line 3 D2: expected {pos.counts[1] + 1}, counted {pos.counts[1]}, "
                   f"software {pos.counts[1]}: {pos.fen}"], out


def test_a_faulty_chip_is_localised(tmp_path, capsys, monkeypatch):
    """A chip that never sees f8e7 (legal here, where e7 is free): the suite's counts and the
    software's differ from its own, and the run says where they part."""
    monkeypatch.setattr(chip_perft, "_chip", None)
    monkeypatch.setattr(chip_perft, "make_chip", lambda *args: HidingChip(hidden="f8e7"))
    board = Board()
    for move in ("e2e4", "e7e6", "g1f3"):
        board.push_uci(move)
    fen = board.fen()
    counts = {d: perft(Board(fen), d) for d in (1, 2)}
    board.push_uci("f8e7")
    hidden = {1: 1, 2: perft(board, 1)}  # the leaves below f8e7, which the chip misses
    status, out, _ = run(["--epd", write_suite(tmp_path, [(fen, counts)]), "--backend", "both",
                          "--target", "cxxrtl"], capsys)
    assert status == 1
    bad = [line for line in out.splitlines() if line.startswith("MISMATCH")]
    assert [line.split(" (")[0] for line in bad] == [
        f"MISMATCH line 1 D{d}: expected {n}, counted {n - hidden[d]}, "
        f"software {n}" for d, n in counts.items()], out
    assert all("(legal moves differ after (root): " in line and "missing from chip: f8e7" in line
               and line.endswith(f": {fen}") for line in bad), out


@pytest.mark.parametrize("argv, words", [
    (["--backend", "hw", "--check"], "--check goes with --backend gen"),
    (["--backend", "sw", "--engines", "2"], "--engines goes with --backend hw or both"),
    (["--backend", "hw", "--engines", "2", "-j", "2"], "--engines N is one chip model"),
    (["--backend", "both", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler goes with"),
    (["--backend", "sw", "--target", "cxxrtl"], "--target goes with --backend gen, hw or both"),
])
def test_options_that_do_not_apply(tmp_path, capsys, argv, words):
    status, _, err = run(["--epd", standard_suite(tmp_path), *argv], capsys)
    assert status == 2 and err.count("\n") == 1 and words in err, err


@pytest.mark.slow
def test_suite_on_two_chip_models(tmp_path, capsys):
    """-j 2: each count of depth 2 split at its root moves over two chip models."""
    path = standard_suite(tmp_path)
    one = json.loads(run(["--epd", path, "--backend", "both", "--json"], capsys)[1])
    status, out, err = run(["--epd", path, "--backend", "both", "--json", "-j", "2"], capsys)
    assert status == 0, err
    two = json.loads(out)
    assert [c["nodes"] for c in two["counts"]] == [c["nodes"] for c in one["counts"]]
    assert two["mismatches"] == 0 and two["hw_cycles"] > 0
