"""What a user meets first: `posdata --version`; an error that names the subcommand and the
option once each, pointing to the subcommand's --help; a short command that imports only its
own subcommand (not Amaranth, Dask's asyncio, numpy or the other subcommands: `posdata perft
--depth 1` starts in about a tenth of a second)."""

import subprocess
import sys

import pytest

from posdata.sim.cli import ALL, COMMANDS, build_parser, main


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("posdata ") and out.count("\n") == 1


@pytest.mark.parametrize("argv, line", [
    (["perft", "--depth", "99"], "posdata: error: perft: --depth must be between 0 and 12, not "
                                 "'99' (see 'posdata perft --help')"),
    (["perft", "--bogus"], "posdata: error: perft: unrecognized arguments: --bogus (see "
                           "'posdata perft --help')"),
    (["demo", "--mhz", "0"], "posdata: error: demo: --mhz must be between 0.001 and 10000, not "
                             "'0' (see 'posdata demo --help')"),
    (["--bogus"], "posdata: error: unrecognized arguments: --bogus (see 'posdata --help')"),
])
def test_errors_say_each_thing_once(capsys, argv, line):
    assert main(argv) == 2
    assert capsys.readouterr().err == line + "\n"


def test_the_help_lines_are_the_modules_own():
    """`posdata --help` names every subcommand without importing it, with the line its module
    gives (sim.cli.COMMANDS repeats them)."""
    assert build_parser(None).format_help() == build_parser(ALL).format_help()


def test_a_short_command_imports_only_its_own():
    code = ("import sys\nfrom posdata.sim.cli import main\nmain(['perft', '--depth', '1'])\n"
            "print(' '.join(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60,  # a hang guard: idle ~0.2 s
                         check=True).stdout.splitlines()[-1].split()
    loaded = {name.rsplit(".", 1)[1] for name in out if name.startswith("posdata.sim.cli.")}
    others = {module for name, (module, _) in COMMANDS.items() if name != "perft"}
    assert "perft_cmd" in loaded and not loaded & others, loaded & others
    heavy = {"numpy", "amaranth", "asyncio", "dask", "posdata.hdl.boards.synth"} & set(out)
    assert not heavy, heavy
