"""The docs' statements about what runs each variant come from its one declaration
(engine.rules.capabilities): docs/variants.md holds the table `posdata variants` prints (`make docs`
writes it), and the README points there instead of counting variants or backends by hand."""

from pathlib import Path

from posdata.sim.cli import main
from posdata.sim.cli.variants_table import BEGIN, END, markdown, replace_block, text
from tests.scripts import load_script

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "variants.md"


def first_difference(have: str, want: str) -> str | None:
    """The first line where ``have`` is not ``want``, both shown; None when equal."""
    have_lines, want_lines = have.splitlines(), want.splitlines()
    for i, (a, b) in enumerate(zip(have_lines, want_lines, strict=False)):
        if a != b:
            return f"line {i + 1} of the table:\n  doc:      {a}\n  declared: {b}"
    if len(have_lines) != len(want_lines):
        return f"the doc's table has {len(have_lines)} lines, the declaration's {len(want_lines)}"
    return None


def doc_block(doc: str) -> str:
    return doc[doc.index(BEGIN):doc.index(END) + len(END)]


def test_variants_md_holds_the_declared_table():
    difference = first_difference(doc_block(DOC.read_text()), markdown())
    assert difference is None, f"docs/variants.md: {difference} (run `make docs`)"


def test_the_table_check_can_fail():
    table = markdown()
    tampered = table.replace("| `chess960` | yes | yes |", "| `chess960` | yes | - |", 1)
    assert tampered != table and "line " in first_difference(tampered, table)
    assert first_difference(table + "\n| extra |", table) is not None


def test_make_docs_writes_the_table(tmp_path):
    doc = tmp_path / "variants.md"
    doc.write_text(f"before\n{BEGIN}\nstale\n{END}\nafter\n")
    load_script(REPO / "docs" / "variants_table.py").main(["variants_table.py", str(doc)])
    assert doc.read_text() == replace_block(f"before\n{BEGIN}\n{END}\nafter\n", markdown())
    assert doc.read_text().startswith("before\n") and doc.read_text().endswith("after\n")


def test_posdata_variants_prints_the_table(capsys):
    assert main(["variants"]) == 0
    assert "\n".join(text()) in capsys.readouterr().out


def test_the_readme_points_at_the_table_and_counts_nothing():
    readme = (REPO / "README.md").read_text()
    assert "docs/variants.md#what-runs-each-variant" in readme
    for stale in ("five variants", "on every backend", "both front ends", "no system packages"):
        assert stale not in readme, stale


def test_cli_md_s_example_is_what_posdata_variants_prints(capsys):
    """docs/cli.md shows a few lines of the output: each is one posdata variants prints."""
    cli = (REPO / "docs" / "cli.md").read_text()
    example = cli[cli.index("$ posdata variants\n"):]
    example = example[:example.index("```")].splitlines()[1:]
    assert main(["variants"]) == 0
    printed = capsys.readouterr().out.splitlines()
    shown = [line for line in example if line != "..."]
    assert len(shown) >= 4
    missing = [line for line in shown if line not in printed]
    assert not missing, f"docs/cli.md shows lines posdata variants does not print: {missing}"
