"""Speed and size figures live in docs/measurements.md, which `make measurements` writes from
the benches with their command and commit (bench/report.py), and historical ones in
docs/decisions.md. A figure typed into another chapter (or the README outside its generated
block) goes stale at the next build, so this test flags one and prints the first offending
line. Design figures the code holds (a default clock, a device's size) are on an allow-list,
each checked against the code where the code states it. Every section of measurements.md a
chapter names must be one bench/report.py renders."""

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
#: where figures belong: the generated measurements and the dated decision log
EXEMPT = {"measurements.md", "decisions.md"}
README_BLOCK = ("<!-- measurements:begin", "<!-- measurements:end -->")

NUMBER = r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?"
#: a number with a unit of speed or size: what the benches and the builds measure
FIGURE = re.compile(
    rf"{NUMBER}\s*(?:[kMG]\s*)?(?:MHz|nodes/s|leaves/s|clocks/s|moves/s|LUT4|FFs?\b|DP16KD|Elo)"
    rf"|{NUMBER}\.\d+\s*clocks?\s*(?:per|a|/)\s*(?:node|leaf|move)"
    rf"|[-+]\d+ \+- \d+(?: Elo)?")

#: figure -> (why it is a design fact, (file, constant, value) when the code states it)
ALLOWED = {
    "100 MHz": ("the ECP5 boards' default clock", ("hdl/boards/synth.py", "DEFAULT_MHZ", 100.0)),
    "33 MHz": ("the iCEBreaker's default clock",
               ("hdl/boards/ice40_top.py", "DEFAULT_ICE40_MHZ", 33.0)),
    "12 MHz": ("the iCEBreaker's oscillator", None),
    "25 MHz": ("the ULX3S's oscillator", None),
    "48 MHz": ("the FT231X's clock, 16 times its top baud rate", None),
    "5,280 LUT4": ("the iCE40 UP5K's size", None),
    "12,000 LUT4": ("the ULX3S-12F's size", None),
}


def prose(text: str) -> list[tuple[int, str]]:
    """(line number, line) of ``text`` outside fenced blocks, inline code blanked (commands,
    hex bytes, option values are not figures)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            line = ""
        lines.append("" if fenced else line)
    # a code span may run over a line's end: blanked whole, the line count kept
    text = re.sub(r"`[^`]*`", lambda m: "``" + "\n" * m.group().count("\n"), "\n".join(lines))
    return [(number, line) for number, line in enumerate(text.split("\n"), 1) if line]


def typed_figures(text: str) -> list[tuple[int, str, str]]:
    """(line number, figure, line) of each speed or size figure not on the allow-list."""
    return [(number, figure, line) for number, line in prose(text)
            for figure in (" ".join(f.split()) for f in FIGURE.findall(line))
            if figure not in ALLOWED]


def without_readme_block(text: str) -> str:
    begin, end = text.index(README_BLOCK[0]), text.index(README_BLOCK[1])
    return text[:begin] + "\n" * text.count("\n", begin, end) + text[end:]


def documents() -> dict[str, str]:
    docs = {f"docs/{p.name}": p.read_text() for p in sorted(DOCS.glob("*.md"))
            if p.name not in EXEMPT}
    docs["README.md"] = without_readme_block((REPO / "README.md").read_text())
    return docs


def constant(path: str, name: str):
    """A module-level constant of a source file, read without importing it."""
    for node in ast.parse((REPO / path).read_text()).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise LookupError(f"{path} defines no {name}")


def section_titles() -> set[str]:
    """The titles bench/report.py gives measurements.md's sections (SECTIONS), and the
    headline table's."""
    for node in ast.parse((REPO / "bench" / "report.py").read_text()).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "SECTIONS" for t in node.targets):
            return {ast.literal_eval(v.elts[0]) for v in node.value.values} | {
                "Headline figures"}
    raise LookupError("bench/report.py has no SECTIONS")


def named_sections(text: str) -> list[str]:
    """The section titles quoted after a mention of measurements.md: `measurements.md, "A"`
    or `[measurements.md](...), "A" and "B"`."""
    flat = " ".join(line for _, line in prose(text))
    names = []
    for run in re.findall(r'measurements\.md(?:\]\([^)]*\))?,\s*((?:"[^"]+"(?:,\s*|\s+and\s+)?)+)',
                          flat):
        names += [" ".join(n.split()) for n in re.findall(r'"([^"]+)"', run)]
    return names


# ---- the tests ----------------------------------------------------------------------------

def test_no_speed_or_size_figure_is_typed_into_a_chapter():
    found = [(name, *hit) for name, text in documents().items() for hit in typed_figures(text)]
    if found:
        name, number, figure, line = found[0]
        raise AssertionError(
            f"{len(found)} figure(s) typed by hand outside docs/measurements.md and "
            f"docs/decisions.md; the first, {figure!r} at {name}:{number}:\n  {line.strip()}\n"
            "Point to the measurement's section of measurements.md instead, move a historical "
            "figure to decisions.md, or, for a design figure the code holds, add it to ALLOWED "
            "in tests/test_docs_figures.py.")


def test_allowed_figures_are_the_codes():
    wrong = [f"{figure}: {path} {name} is {constant(path, name)!r}, not {value!r}"
             for figure, (_, source) in ALLOWED.items() if source
             for path, name, value in [source] if constant(path, name) != value]
    assert not wrong, "\n".join(wrong)


def test_every_allowed_figure_is_used():
    text = "\n".join(line for doc in documents().values() for _, line in prose(doc))
    unused = [figure for figure in ALLOWED if figure not in " ".join(text.split())]
    assert not unused, f"ALLOWED lists figures no document holds: {unused}"


def test_named_measurement_sections_exist():
    titles = section_titles()
    named = {(name, title) for name, text in documents().items()
             for title in named_sections(text)}
    assert named, "no chapter names a section of measurements.md: the pattern is broken"
    wrong = sorted(f"{name}: {title!r}" for name, title in named if title not in titles)
    assert not wrong, ("sections of measurements.md that bench/report.py does not render:\n"
                       + "\n".join(wrong))


def test_the_checks_can_fail():
    text = ("routes at 34.43 MHz, 17,498 LUT4 and 18 DP16KD\n"
            "19.14 clocks per node, 1.50 M nodes/s, -89 +- 73 Elo\n"
            "at 100 MHz by default; `A5 50 FF 00` and `--mhz 90 MHz`\n"
            "```\nposdata synth  # 107.46 MHz\n```\n"
            "one table entry per clock, 4,096 entries, 3 clocks\n")
    assert [(n, f) for n, f, _ in typed_figures(text)] == [
        (1, "34.43 MHz"), (1, "17,498 LUT4"), (1, "18 DP16KD"),
        (2, "19.14 clocks per node"), (2, "1.50 M nodes/s"), (2, "-89 +- 73 Elo")]
    assert named_sections('see [measurements.md](measurements.md), "Search,\n'
                          'software generator" and "No such"') == [
        "Search, software generator", "No such"]
    assert "No such" not in section_titles()
