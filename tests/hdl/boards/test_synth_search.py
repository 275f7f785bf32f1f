"""posdata synth --search: what the search board refuses before any tool runs."""

import pytest

from posdata.hdl.boards.synth import SynthError, synthesize
from posdata.sim.cli import main


@pytest.mark.parametrize("kwargs, said", [
    ({"board": "icebreaker"}, "ECP5 boards"),
    ({"engines": 2}, "not perft engines"),
])
def test_the_search_board_refuses(tmp_path, kwargs, said):
    with pytest.raises(SynthError, match=said):
        synthesize(build_dir=str(tmp_path), search=True, **kwargs)


def test_the_cli_refuses_seeds_with_search(capsys):
    assert main(["synth", "--search", "--seeds", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--seeds builds the perft chip's board" in err and "\n" not in err
