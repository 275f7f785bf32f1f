"""What ``--engine`` words make (engine.match.spec): the command, options, limits and deadline of
an engine, and a one-line error naming the engine and the word for anything wrong."""

import pytest

from posdata.engine.match.spec import UNTIMED_TIMEOUT_S, SpecError, parse_engine

POSDATA = ["python", "-m", "posdata.sim", "uci"]


def test_a_posdata_backend():
    spec = parse_engine(["backend=SW", "chipdepth=3", "depth=3", "name=chip"], [], "--engine 1")
    assert spec.command(POSDATA) == POSDATA
    assert spec.uci_options() == {"Backend": "sw", "ChipDepth": "3"}
    assert (spec.go(), spec.name, spec.move_timeout()) == ("go depth 3", "chip",
                                                          UNTIMED_TIMEOUT_S)
    assert spec.default_name() == "posdata sw"


def test_a_uci_command_with_options_and_limits():
    spec = parse_engine(["cmd=./engines/sf --threads 1", "option.UCI_Elo=1800",
                         "option.Skill Level=5", "movetime=250", "nodes=10000", "dir=/tmp"],
                        ["depth=9", "movetime=100"], "--engine 2")
    assert spec.command(POSDATA) == ["./engines/sf", "--threads", "1"]
    assert spec.uci_options() == {"UCI_Elo": "1800", "Skill Level": "5"}
    # the engine's own movetime over --each's; all limits in one go
    assert spec.go() == "go depth 9 nodes 10000 movetime 250"
    assert spec.move_timeout() == pytest.approx(2 * 0.25 + 10)
    assert (spec.dir, spec.default_name(), spec.limits_text()) == (
        "/tmp", "sf", "depth 9, nodes 10000, movetime 250 ms")
    assert parse_engine(["cmd=x", "depth=1", "timeout=0.5"], [], "e").move_timeout() == 0.5


def test_an_engines_own_program_replaces_each_s():
    spec = parse_engine(["backend=tscp"], ["cmd=stockfish", "depth=2"], "--engine 2")
    assert (spec.command(POSDATA), spec.uci_options(), spec.go()) == (
        POSDATA, {"Backend": "tscp"}, "go depth 2")
    spec = parse_engine(["cmd=sf"], ["backend=sw", "depth=2"], "--engine 2")
    assert spec.command(POSDATA) == ["sf"]


@pytest.mark.parametrize("words, each, error", [
    (["depth=3"], [], "give cmd=COMMAND or backend=tscp|gen|sw|hw, one of them"),
    (["cmd=sf", "backend=sw", "depth=1"], [], "not both"),
    (["backend=sw"], [], "no limit: give depth=N, nodes=N or movetime=MS"),
    (["backend=xyz", "depth=1"], [], "backend must be one of tscp, gen, sw, hw, not 'xyz'"),
    (["backend=tscp", "chipdepth=2", "depth=1"], [], "chipdepth goes with backend=sw or hw"),
    (["backend=sw", "depth=0"], [], "depth must be an integer from 1 to 999, not '0'"),
    (["backend=sw", "movetime=1.5"], [], "movetime must be an integer"),
    (["backend=sw", "nodes=²"], [], "nodes must be an integer"),
    (["backend=sw", "depth=1", "timeout=nan"], [], "timeout must be a number of seconds"),
    (["backend=sw", "depth=1", "timeout=-1"], [], "timeout must be a number of seconds"),
    (["backend=sw", "depth"], [], "'depth' is not KEY=VALUE"),
    (["backend=sw", "speed=3"], [], "unknown key 'speed'"),
    (["backend=sw", "depth=1", "depth=2"], [], "depth given twice"),
    (["backend=sw", "option.=3", "depth=1"], [], "names no option"),
    (["cmd=", "depth=1"], [], "cmd= is empty"),
    (["cmd='unclosed", "depth=1"], [], "No closing quotation"),
    (["backend=sw"], ["bogus"], "--each: 'bogus' is not KEY=VALUE"),
])
def test_bad_words_are_one_line_naming_the_engine(words, each, error):
    with pytest.raises(SpecError) as e:
        parse_engine(words, each, "--engine 2")
    assert error in str(e.value) and "\n" not in str(e.value)
    assert str(e.value).startswith("--each" if each and "each" in error else "--engine 2")
