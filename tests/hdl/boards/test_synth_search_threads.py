"""posdata synth --search --threads N: the thread count's refusals, before any tool runs."""

import pytest

from posdata.hdl.boards.synth import MAX_SEARCH_THREADS, SynthError, synthesize
from posdata.sim.cli import main


@pytest.mark.parametrize("kwargs, said", [
    ({"search_threads": 2}, "add --search"),
    ({"search": True, "search_threads": 0}, "1 to 16 threads, not 0"),
    ({"search": True, "search_threads": MAX_SEARCH_THREADS + 1}, "not 17"),
])
def test_synthesize_refuses(tmp_path, kwargs, said):
    with pytest.raises(SynthError, match=said):
        synthesize(board="ulx3s-85f", build_dir=str(tmp_path), **kwargs)


@pytest.mark.parametrize("argv, said", [
    (["--threads", "2"], "--threads goes with --search"),
    (["--search", "--threads", "0"], "--threads"),
    (["--search", "--threads", str(MAX_SEARCH_THREADS + 1)], "--threads"),
])
def test_the_cli_refuses(capsys, tmp_path, argv, said):
    assert main(["synth", "--board", "ulx3s-85f", "--build-dir", str(tmp_path), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert said in err and "\n" not in err, err
