"""Every subcommand's options and positions, fuzzed (fuzz_cli.py: what is generated, what is
stubbed and why): exit status 0, 1 or 2, one line on stderr on 2, never a traceback, nothing
half written. Seeded; a failure lists the command lines that broke the contract."""

import argparse
import collections
import random

import pytest

from posdata.sim.cli.common import CliError

from . import fuzz_cli


@pytest.fixture
def fuzz_env(tmp_path, monkeypatch):
    """A fresh working directory with the files the values name, the stubs in place, no Dask
    scheduler from the environment."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    return monkeypatch


def fuzz(monkeypatch, seed: int, n: int, light: bool) -> collections.Counter:
    fuzz_cli.install_stubs(monkeypatch, light)
    pools = fuzz_cli.Pools()
    pools.make(random.Random(seed))
    kinds = collections.Counter()
    broken = []
    for argv in fuzz_cli.command_lines(seed, n, pools):
        outcome = fuzz_cli.run_one(argv)
        problem = outcome.problem()
        kinds[outcome.status] += 1
        if problem:
            broken.append(f"{problem}: argv={outcome.argv!r}\n    {outcome.err[-300:]!r}")
    assert not broken, f"seed {seed}: {len(broken)} of {n} command lines broke the contract:\n" \
        + "\n".join(broken[:20])
    return kinds


def test_fuzz_every_subcommand(fuzz_env):
    """1,500 command lines, about 10 s."""
    kinds = fuzz(fuzz_env, seed=33, n=1500, light=True)
    # the fuzz reaches every outcome: a generator that only made bad input would test little
    assert kinds[0] and kinds[1] and kinds[2] and kinds["reached"], kinds


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 5))
def test_fuzz_deeper(fuzz_env, seed):
    """More command lines, and the gateware for real (the generator in Amaranth's simulator,
    the compiled models, the compiled board): about a minute per seed."""
    fuzz(fuzz_env, seed=seed, n=2500, light=False)


THREE_CHECKS = fuzz_cli.IMPOSSIBLE_FENS[0]
#: command lines a fuzz probe broke (issue 43), with a word of the one line each now gives
FOUND = [
    (["walk", "--moves", "W\u00b2", "--square", "b1"], "unknown atom"),
    (["program"], "ulx3s-25f/report.json: uart.baud is 'fast'"),
    (["program", "--board", "ulx3s-45f", "--port", "/dev/ttyUSB0"], "uart.baud is true"),
    (["program", "--board", "colorlight-5a75b"], "uart is 'fast'"),
    (["perft", "--depth", "1", "--fen", THREE_CHECKS], "3 pieces give check"),
    (["moves", "--fen", THREE_CHECKS], "3 pieces give check"),
    (["search", "--depth", "1", "--fen", THREE_CHECKS], "3 pieces give check"),
    (["perftree", "1", THREE_CHECKS], "3 pieces give check"),
    (["synth", "--seed", "1", "--seeds", "2"], "--seeds: not allowed with argument --seed"),
    (["search", "--depth", "1", "--threads", "2"], "--threads goes with --backend sw or hw"),
    (["search", "--depth", "1", "--backend", "hw", "--baud", "9600"],
     "--baud goes with --target board"),
]


def test_what_a_probe_found_is_one_line(fuzz_env):
    """Each under the fuzz's judge, in its files (the builds program reads among them)."""
    fuzz_cli.install_stubs(fuzz_env, light=True)
    fuzz_cli.Pools().make(random.Random(1))
    for argv, word in FOUND:
        outcome = fuzz_cli.run_one(argv)
        assert outcome.status == 2 and outcome.problem() is None and word in outcome.err, \
            (argv[:3], outcome.status, outcome.err[-300:])
    # the good build is programmed (openFPGALoader's stub reached): the others fail for their
    # baud rate alone
    assert fuzz_cli.run_one(["program", "--board", "ulx3s-12f"]).status == "reached"


def test_every_numeric_option_is_range_checked():
    """Every option with a type uses common's int_in_range or float_in_range (bounds on the
    function), or parses a name (--variant): no bare int or float lets nan, inf, 0 or a
    5000-digit number through."""
    loose = []
    for name, sub in fuzz_cli.subcommands().items():
        for action in sub._actions:
            if action.type is None or isinstance(action, argparse._HelpAction):
                continue
            if action.dest == "variant":
                continue
            if not hasattr(action.type, "lo"):
                loose.append(f"{name} {action.option_strings or action.dest}")
    assert not loose, loose


def test_the_fuzz_can_fail(fuzz_env):
    """The judge itself: a traceback, two lines on status 2, a leftover temporary and a file
    written by a failed command are each caught."""
    def outcome(status, err="", new=()):
        return fuzz_cli.Outcome(["x"], status, err, list(new)).problem()
    assert outcome(2, "posdata: error: x\n") is None
    assert outcome("reached") is None
    assert outcome("ValueError", "ValueError: x")
    assert outcome(0, "Traceback (most recent call last):\n")
    assert outcome(2, "posdata: error: a\nb\n")
    assert outcome(2, "usage: x\n")
    assert outcome(3)
    assert outcome(0, new=["./.x.v.1.abc.posdata-tmp"])
    assert outcome(2, "posdata: error: x\n", new=["./x.v"])
    # and run_one sees an exception escape main
    fuzz_env.setattr("posdata.sim.cli.perft_cmd.run", lambda args: 1 / 0)
    assert fuzz_cli.run_one(["perft"]).problem() == "an uncaught ZeroDivisionError"


def test_an_error_quoting_a_newline_is_one_line(fuzz_env):
    def run(args):
        raise CliError("cannot write a\nb.v")
    fuzz_env.setattr("posdata.sim.cli.perft_cmd.run", run)
    outcome = fuzz_cli.run_one(["perft"])
    assert outcome.problem() is None and outcome.err == "posdata: error: cannot write a\\nb.v\n"
