"""Loading a compiled model refuses in one line what would crash the process or be driven
wrongly: a library cut short (SIGBUS when mapped), a file that is no library, another design's
model or another library altogether (an `AttributeError: undefined symbol` at the first call);
and a model that cannot be built for an unwritable cache is one line from the command line. Real
libraries are copied, not built: the generator's model, which the suite builds anyway."""

import ctypes.util
import os
import shutil

import pytest

from posdata.sim.cli import main
from posdata.sim.drivers.chip_cxxrtl import ChipModel
from posdata.sim.drivers.fpga_board import BoardError
from posdata.sim.drivers.fpga_board_sim import CompiledBoard
from posdata.sim.drivers.gen_cxxrtl import CxxrtlGenerator
from posdata.sim.models.cxxrtl import build_library
from posdata.sim.models.model_files import ModelFiles
from posdata.sim.models.toolchain import ToolchainError


@pytest.fixture(scope="module")
def generator_library(tmp_path_factory):
    """A copy of the generator's library, with the memory image it loads."""
    built = build_library()
    copy = tmp_path_factory.mktemp("models") / "generator.so"
    shutil.copy(built, copy)
    return ModelFiles(str(copy), built.image)


def c_library() -> str:
    """A shared library that is no model (the C library, or the maths library)."""
    for name in ("c", "m"):
        found = ctypes.util.find_library(name)
        if found and os.path.isabs(found):
            return found
    for folder in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
                   "/lib", "/usr/lib"):
        path = os.path.join(folder, "libm.so.6")
        if os.path.exists(path):
            return path
    pytest.skip("no C library found to stand in for a foreign one")


def one_line(error) -> str:
    message = str(error.value)
    assert len(message.splitlines()) == 1, message
    return message


def test_the_generators_model_loads(generator_library):
    with CxxrtlGenerator(library=generator_library) as model:
        assert model.generate  # loaded, entry points bound


@pytest.mark.parametrize("make", [ChipModel, lambda library: CompiledBoard(library=library)])
def test_another_designs_model_is_refused(generator_library, make):
    with pytest.raises((ToolchainError, BoardError)) as e:
        make(library=generator_library)
    message = one_line(e)
    assert f"{generator_library} is not the compiled" in message
    assert "has no posdata_" in message and "delete it" in message


def test_a_library_that_is_no_model_is_refused(tmp_path):
    foreign = str(tmp_path / "libposdata_model.so")
    shutil.copy(c_library(), foreign)
    with pytest.raises(ToolchainError, match=r"is not the compiled \(CXXRTL\) move generator: "
                                             r"it has no posdata_create") as e:
        CxxrtlGenerator(library=foreign)
    one_line(e)


def test_a_truncated_library_is_refused_before_it_is_mapped(generator_library, tmp_path):
    short = str(tmp_path / "short.so")
    with open(generator_library, "rb") as f:
        data = f.read()
    for size in (len(data) - 1, len(data) // 2, 100):
        with open(short, "wb") as f:
            f.write(data[:size])
        with pytest.raises(ToolchainError, match=f"short.so is cut short .{size} bytes") as e:
            CxxrtlGenerator(library=short)
        one_line(e)


def test_a_file_that_is_no_library_is_refused(tmp_path):
    junk = tmp_path / "junk.so"
    junk.write_bytes(b"#!/bin/sh\necho not a library\n")
    with pytest.raises(ToolchainError, match=r"cannot load the compiled \(CXXRTL\) move generator "
                                             r"from .*junk.so") as e:
        CxxrtlGenerator(library=str(junk))
    one_line(e)


@pytest.mark.parametrize("argv", [["board", "--target", "cxxrtl", "perft", "--depth", "1"],
                                  ["perft", "--backend", "hw", "--depth", "1", "-j", "1"]])
def test_an_unwritable_cache_is_one_line_from_the_cli(tmp_path, monkeypatch, capsys, argv):
    """Nothing cached and nowhere to build (the cache's root is a file: root may write
    anywhere else): exit 2, one line naming the directory and how to choose another."""
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("POSDATA_CACHE", str(blocked))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("posdata: error: cannot write the model cache")
    assert str(blocked) in err and "POSDATA_CACHE" in err
