"""posdata perft --epd: a suite file written here from the published counts (the oracle,
engine.rules.positions) is checked count by count; one count made wrong gives exit status 1 and
names its line and depth; -j 2 (Dask workers) gives the same counts; bad lines are one-line
errors."""

import json

import pytest

from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.sim.cli import main


def suite(tmp_path, wrong: tuple[int, int] | None = None, depth: int = 3) -> str:
    """The six positions with their published counts to ``depth``, in the usual format (a
    4-field FEN on the odd lines, as many suites have); ``wrong`` = (line, depth) off by one."""
    lines = ["# made by tests/sim/runs/test_perft_suite.py"]
    for i, pos in enumerate(STANDARD_POSITIONS):
        fen = pos.fen if i % 2 == 0 else " ".join(pos.fen.split()[:4])
        counts = []
        for d, n in enumerate(pos.counts[:depth], 1):
            counts.append(f"D{d} {n + (1 if (len(lines) + 1, d) == wrong else 0)}")
        lines.append(fen + " ;" + " ;".join(counts))
    path = tmp_path / "suite.epd"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def run_json(argv, capsys):
    status = main(["perft", "--quiet", "--json", *argv])
    out, err = capsys.readouterr()
    return status, json.loads(out) if out else None, err


def test_suite_all_counts_checked(tmp_path, capsys):
    status, data, err = run_json(["--epd", suite(tmp_path)], capsys)
    assert status == 0, err
    got = [(c["line"], c["depth"], c["nodes"]) for c in data["counts"]]
    want = [(i + 2, d, n) for i, pos in enumerate(STANDARD_POSITIONS)
            for d, n in enumerate(pos.counts[:3], 1)]
    assert got == want and data["mismatches"] == 0 and data["skipped"] == 0


def test_one_wrong_count_named(tmp_path, capsys):
    path = suite(tmp_path, wrong=(4, 2))  # position3's D2
    status = main(["perft", "--quiet", "--epd", path, "--max-depth", "2"])
    out = capsys.readouterr().out
    assert status == 1
    bad = [line for line in out.splitlines() if line.startswith("MISMATCH")]
    pos = STANDARD_POSITIONS[2]
    assert bad == [f"MISMATCH line 4 D2: expected {pos.counts[1] + 1}, counted {pos.counts[1]}: "
                   f"{pos.fen}"], out  # line 4: a 6-field FEN
    assert "12 counts, 6 deeper than --max-depth skipped" in out


def test_suite_on_workers_and_generator(tmp_path, capsys):
    """-j 2 splits each count at its root moves over two Dask workers; the generator in the
    loop (gen on the compiled model) counts the same."""
    path = suite(tmp_path, depth=2)
    _, one, _ = run_json(["--epd", path], capsys)
    status, two, err = run_json(["--epd", path, "-j", "2"], capsys)
    assert status == 0, err
    status, gen, err = run_json(["--epd", path, "--backend", "gen"], capsys)
    assert status == 0, err
    assert two["counts"] == one["counts"] == gen["counts"]


@pytest.mark.parametrize("text, message", [
    ("8/8/8/8/8/8/8/8 w - - ;D1 0\n", "line 1: "),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ;D1 twenty\n",
     "line 1: 'D1 twenty' is not a count"),
    ("\n# nothing\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n", "line 3: no counts"),
])
def test_bad_suite_is_one_line(tmp_path, capsys, text, message):
    path = tmp_path / "bad.epd"
    path.write_text(text)
    status = main(["perft", "--epd", str(path)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and f"{path}: {message}" in err, err


def test_the_shipped_suite_holds_the_published_counts():
    """bench/data/perft.epd, the README's suite, says what engine/rules/positions.py says (both
    copied from the Chess Programming Wiki: a typo in either shows here)."""
    from posdata.sim.runs.perft_suite import parse_suite
    from tests.scripts import REPO
    entries = parse_suite((REPO / "bench" / "data" / "perft.epd").read_text())
    assert [(e.fen, tuple(c for _, c in sorted(e.counts.items()))) for e in entries] == \
        [(p.fen, p.counts) for p in STANDARD_POSITIONS]
