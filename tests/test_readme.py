"""The manual is held to the code: the README's commands run (or at least parse) as written,
docs/cli.md names every option that exists and none that does not, every make target named
exists, every relative link resolves, the pipeline picture is what its script draws, and the
measured figures are what bench/report.py renders from docs/measurements.json."""

import argparse
import re
import shlex
from pathlib import Path

import pytest

from posdata.sim.cli import build_parser, main
from posdata.sim.cli.common import CliError
from tests.scripts import load_script

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DOCS = REPO / "docs"
MAX_README_LINES = 300


def code_blocks(text: str, lang: str) -> list[str]:
    """The lines of every fenced block of ``lang`` (comments after `#` dropped)."""
    lines = []
    for block in re.findall(rf"^```{lang}\n(.*?)^```", text, re.M | re.S):
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line:
                lines.append(line)
    return lines


def readme_commands() -> list[str]:
    return code_blocks(README.read_text(), "sh")


def subparsers() -> dict:
    parser = build_parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return action.choices


def make_targets() -> set[str]:
    return set(re.findall(r"^([a-z][a-z0-9.-]*):", (REPO / "Makefile").read_text(), re.M))


def parse_error(argv: list[str]) -> str | None:
    """None when the CLI's parser accepts ``argv``, else what it said."""
    try:
        build_parser().parse_args(argv)
    except SystemExit as e:
        return f"argparse refused {argv} (exit {e.code})"
    except CliError as e:  # the CLI's parser reports bad usage as a one-line error
        return str(e)
    return None


def is_quick(args) -> bool:
    """Commands cheap enough to run here: software counts and listings of a few seconds."""
    if args.command == "perft":
        return (args.backend == "sw" and args.epd is None and args.depth <= 4
                and args.jobs in (None, 1) and args.scheduler is None)
    if args.command == "perftree":
        return args.depth <= 3
    if args.command == "moves":
        return args.backend == "sw"
    if args.command == "walk":
        return args.svg is None
    return False


# ---- the README --------------------------------------------------------------------------

def test_readme_is_short():
    lines = README.read_text().count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines, more than {MAX_README_LINES}"


def test_readme_shows_commands():
    commands = readme_commands()
    assert any(c.startswith("posdata ") for c in commands)
    assert {"make demo", "make test"} <= set(commands)


@pytest.mark.parametrize("command", readme_commands())
def test_readme_command_parses(command):
    """Every command of the README's sh blocks: a make target that exists, or a posdata
    command the CLI's parser accepts. Anything else is a command this test cannot check."""
    argv = shlex.split(command)
    if argv[0] == "make":
        targets = [a for a in argv[1:] if "=" not in a and not a.startswith("-")]
        assert targets and set(targets) <= make_targets(), f"no such make target: {command}"
        return
    assert argv[0] == "posdata", f"the README shows a command this test cannot check: {command}"
    error = parse_error(argv[1:])
    assert error is None, f"{command}: {error}"


QUICK = [c for c in readme_commands() if c.startswith("posdata ")
         and parse_error(shlex.split(c)[1:]) is None
         and is_quick(build_parser().parse_args(shlex.split(c)[1:]))]


def test_some_readme_commands_are_run():
    assert len(QUICK) >= 4, QUICK


@pytest.mark.parametrize("command", QUICK)
def test_readme_quick_command_runs(command, capsys):
    status = main(shlex.split(command)[1:])
    out = capsys.readouterr()
    assert status == 0, f"{command}: exit {status}\n{out.err}"
    assert out.out.strip(), f"{command} printed nothing"


@pytest.mark.parametrize("name", sorted(subparsers()))
def test_every_subcommand_has_help(name, capsys):
    with pytest.raises(SystemExit) as e:
        main([name, "--help"])
    assert e.value.code == 0
    assert f"usage: posdata {name}" in capsys.readouterr().out


# ---- docs/cli.md -------------------------------------------------------------------------

def synopses() -> dict[str, list[str]]:
    """Per subcommand, the synopsis lines of docs/cli.md (``posdata NAME ...`` in text
    blocks)."""
    out = {}
    text = (DOCS / "cli.md").read_text()
    for block in re.findall(r"^```text\n(.*?)^```", text, re.M | re.S):
        current = None
        for line in block.splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] == "posdata":
                current = out.setdefault(words[1], [])
                current.append(line)
            elif current is not None and line.startswith(" "):
                current.append(line)  # the synopsis goes on, indented
            else:
                current = None
    return out


def options_named(lines: list[str]) -> set[str]:
    text = " ".join(lines)
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*|-j)(?![\w-])", text))


def parser_options(parser) -> set[str]:
    """The options a user is told of: not an older spelling (common.Renamed, hidden from
    --help), which is one line naming the new one."""
    return {s for a in parser._actions if a.help != argparse.SUPPRESS
            for s in a.option_strings} - {"-h", "--help"}


def test_cli_md_documents_every_subcommand():
    assert set(synopses()) == set(subparsers())


@pytest.mark.parametrize("name", sorted(subparsers()))
def test_cli_md_names_the_options_that_exist(name):
    named = options_named(synopses().get(name, []))
    real = parser_options(subparsers()[name])
    assert not named - real, f"docs/cli.md names options posdata {name} lacks: {named - real}"
    missing = real - named
    assert not missing, f"docs/cli.md's synopsis of posdata {name} lacks: {missing}"


def test_option_check_can_fail():
    """The checks above see a wrong option and a missing one."""
    assert options_named(["posdata perft [--no-such-option] [-j N]"]) == {"--no-such-option",
                                                                        "-j"}
    assert parse_error(["perft", "--no-such-option"]) is not None
    assert parse_error(["no-such-command"]) is not None


# ---- make targets, links ------------------------------------------------------------------

def documents() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def test_make_targets_named_exist():
    named = set()
    for path in documents():
        named |= {(path.name, t) for t in re.findall(r"`make ([a-z][a-z0-9.-]*)",
                                                      path.read_text())}
    wrong = sorted(f"{doc}: make {t}" for doc, t in named if t not in make_targets())
    assert not wrong, wrong


def test_every_phony_target_is_documented():
    makefile = (REPO / "Makefile").read_text()
    phony = set(re.search(r"^\.PHONY:(.*)$", makefile, re.M).group(1).split())
    documented = set(re.findall(r"`make ([a-z][a-z0-9.-]*)", (DOCS / "cli.md").read_text()))
    missing = phony - documented - {"help", "clean"}
    assert not missing, f"make targets docs/cli.md does not describe: {missing}"


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {slug(h) for h in re.findall(r"^#+ (.*)$", path.read_text(), re.M)}


def broken_links(path: Path) -> list[str]:
    wrong = []
    text = re.sub(r"^```.*?^```", "", path.read_text(), flags=re.M | re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # an address outside the repository
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            wrong.append(f"{path.name}: {target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            wrong.append(f"{path.name}: {target} (no such heading)")
    return wrong


def test_relative_links_resolve():
    wrong = [w for path in documents() for w in broken_links(path)]
    assert not wrong, "\n".join(wrong)


def test_link_check_can_fail(tmp_path):
    doc = tmp_path / "a.md"
    doc.write_text("# A title\n[ok](a.md#a-title) [gone](b.md) [no](a.md#nowhere)\n")
    assert broken_links(doc) == ["a.md: b.md (no such file)",
                                 "a.md: a.md#nowhere (no such heading)"]


# ---- the picture and the figures -----------------------------------------------------------

def test_pipeline_svg_is_what_the_script_draws():
    draw = load_script(DOCS / "draw_pipeline.py")
    assert (DOCS / "pipeline.svg").read_text() == draw.render(), \
        "docs/pipeline.svg is stale: run `make docs`"
    missing = sorted(p for p in draw.paths() if not (REPO / p).exists())
    assert not missing, f"the picture names files that do not exist: {missing}"


def test_measurements_are_rendered_from_their_data():
    report = load_script(REPO / "bench" / "report.py")
    data = report.load(str(DOCS / "measurements.json"))
    assert (DOCS / "measurements.md").read_text() == report.markdown(data), \
        "docs/measurements.md differs from its data: run `make docs` (never edit it by hand)"
    readme = README.read_text()
    assert report.replace_block(readme, report.readme_block(data)) == readme, \
        "the README's figures differ from docs/measurements.json: run `make docs`"


def test_readme_figures_are_those_of_measurements_md():
    report = load_script(REPO / "bench" / "report.py")
    readme = README.read_text()
    block = readme[readme.index(report.BEGIN) + len(report.BEGIN):readme.index(report.END)]
    table = [line for line in block.splitlines() if line.startswith("|")]
    assert len(table) >= 8, "the README's block holds fewer than six figures"
    assert "\n".join(table) in (DOCS / "measurements.md").read_text()


def test_figure_check_can_fail():
    report = load_script(REPO / "bench" / "report.py")
    data = report.load(str(DOCS / "measurements.json"))
    readme = README.read_text()
    tampered = readme.replace("| `make bench` |", "| `make bench` (typed by hand) |", 1)
    assert tampered != readme
    assert report.replace_block(tampered, report.readme_block(data)) != tampered
