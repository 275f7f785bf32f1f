"""Memory contents loaded at run time (sim.models.memory_images): variants of one geometry share
one compiled library under each simulator and differ only in the image their models load; the
image, not the library, decides what the model plays; an image that does not fit is refused in
one line."""

import dataclasses
import re

import pytest

from posdata.engine.rules.board import Board
from posdata.sim.drivers.chip_cxxrtl import chip_params
from posdata.sim.drivers.gen_cxxrtl import CxxrtlGenerator, model_params
from posdata.sim.models import cxxrtl, memory_images, verilator
from posdata.sim.models.model_files import ModelFiles
from posdata.sim.models.toolchain import ToolchainError

#: a lone queen, and in "almost" a chancellor (rook and knight) on the same square with the
#: same piece code: the same board to the hardware, whose moves only the memories decide
LONE = {"chess": "4k3/8/8/8/3Q4/8/8/4K3 w - - 0 1", "almost": "4k3/8/8/8/3C4/8/8/4K3 w - - 0 1"}


@pytest.fixture(scope="module")
def generators():
    """The generator's library and image for chess and for almost (one geometry), and
    amazon's (another)."""
    return {v: cxxrtl.build_library(verbose=False, params=model_params(variant=v))
            for v in ("chess", "almost", "amazon")}


def test_variants_of_one_geometry_share_the_library(generators):
    chess, almost, amazon = generators["chess"], generators["almost"], generators["amazon"]
    assert str(chess) == str(almost)  # one compile
    assert chess.image != almost.image
    assert str(amazon) != str(chess)  # amazon's ROM is deeper: another library


def test_the_chip_of_almost_is_chess_chip_with_another_image():
    """The perft chip's attacker planes come from a table too (hdl.chip.chessboard), so chess and
    almost, whose queen and chancellor differ only there and in the ROM, are one RTL."""
    for build in (cxxrtl.build_library, verilator.build_library):
        chess = build(verbose=False, design="chip", params=chip_params())
        almost = build(verbose=False, design="chip", params=chip_params(variant="almost"))
        assert str(chess) == str(almost), build.__module__
        assert chess.image != almost.image


def moves(library, board):
    with CxxrtlGenerator(library=library, variant=board.variant.name) as generator:
        return generator.generate(board).moves


def test_the_image_decides_what_the_model_plays(generators):
    """Chess's library with almost's image generates almost's moves (the reference's), and with
    chess's image chess's: the contents come from the image, none are compiled in."""
    library = str(generators["chess"])
    for variant, fen in LONE.items():
        board = Board(fen, variant)
        got = moves(ModelFiles(library, generators[variant].image), board)
        assert sorted(got) == sorted(board.moves()), variant
    assert sorted(Board(LONE["chess"]).moves()) != sorted(Board(LONE["almost"], "almost").moves())


def test_an_image_of_another_geometry_is_refused(generators):
    with pytest.raises(ToolchainError, match="another geometry|memories to load"):
        CxxrtlGenerator(library=ModelFiles(str(generators["chess"]),
                                           generators["amazon"].image))


def test_a_library_without_its_image_is_refused(generators):
    with pytest.raises(ToolchainError, match="none came with it"):
        CxxrtlGenerator(library=str(generators["chess"]))


def test_a_damaged_image_is_refused_in_one_line(generators, tmp_path):
    with open(generators["chess"].image, "rb") as f:
        data = f.read()
    for name, damaged in (("short", data[:-3]), ("header", b"x" + data[1:]),
                          ("long", data + b"\0")):
        path = tmp_path / name
        path.write_bytes(damaged)
        path.chmod(0o600)
        with pytest.raises(ToolchainError, match="damaged") as caught:
            CxxrtlGenerator(library=ModelFiles(str(generators["chess"]), str(path)))
        assert "\n" not in str(caught.value)


def test_the_split_takes_every_word_out_and_keeps_the_shapes():
    """Each memory's words leave the C++ and the Verilog, and both read the same blocks."""
    cxx_blocks = memory_images.split(cxxrtl.generate_cxx(params=model_params(variant="almost")))[1]
    from posdata.sim.models.verilog_export import verilog_text
    verilog, v_blocks = memory_images.split_verilog(
        verilog_text("generator", model_params(variant="almost")))
    assert not re.search(r"^ +\S+ \[\d+\] = \d+'h", verilog, re.M)  # no word left
    # one block per memory in each; Yosys may order them differently
    key = dataclasses.astuple
    assert sorted(map(key, cxx_blocks)) == sorted(map(key, v_blocks))


def test_encode_and_read_are_inverse():
    blocks = [memory_images.Block(17, 2, (1, 0x1FFFF)),
              memory_images.Block(64, 1, (0xFFFFFFFF, 1))]
    assert memory_images.read(memory_images.encode(blocks), "test") == blocks


def test_the_verilog_split_reads_decimal_words():
    """Yosys writes a 32-bit word in decimal (the walk ROM with modes at the chip's geometry):
    read as its value, not refused, and taken out of the Verilog."""
    verilog = ("module top(clk);\n  input clk;\n  reg [31:0] mem [1:0];\n"
               "  initial begin\n    mem[0] = 32'd3221225992;\n    mem[1] = 32'd7;\n  end\n"
               "endmodule\n")
    out, blocks = memory_images.split_verilog(verilog)
    assert blocks == [memory_images.Block(32, 2, (3221225992, 7))]
    assert "32'd" not in out
