"""The bitstream's block RAM contents, and the ROM images they must hold.

A bitstream is unpacked with ``yowasp-ecpunpack`` into Trellis's textual configuration, where
each used block RAM's contents is a ``.bram_init`` section of 2,048 nine-bit words: the 1,024
18-bit rows of the array, low half first (nextpnr writes INITVAL_xx's 16 rows of 20 bits that
way). How a row holds data depends on the port width (Lattice TN1264; the same organisation as
tests/netlist/dp16kd_model.v): x1/x2/x4 use a row's 16 data bits (8 and 17 are parity), x9 half
a row, x18 a row, x36 two rows. The width of each block is not read from the configuration
(Trellis spreads it over several tiles); every width is tried, and each bit column of each ROM
must appear, whole and with nothing after it, as a column of some block at some width.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from posdata.hdl.image.addressing import END_BITS
from posdata.hdl.image.dense import split_starts
from posdata.hdl.image.variant import variant_image

WIDTHS = (1, 2, 4, 9, 18, 36)


def tool(name: str) -> str:
    return os.path.join(os.path.dirname(sys.executable), name)


def unpack(bitstream: Path) -> str:
    """The textual configuration of ``bitstream`` (yowasp-ecpunpack), unpacked in a directory of
    this call's own (the tool, WebAssembly, sees only its working directory): not beside the
    bitstream, in the model cache, where two runs would write the same file."""
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copyfile(bitstream, os.path.join(tmp, "design.bit"))
        subprocess.run([tool("yowasp-ecpunpack"), "design.bit", "design.config"], cwd=tmp,
                       check=True, capture_output=True)
        return Path(tmp, "design.config").read_text()


def bram_rows(config: str) -> list[list[int]]:
    """Each block RAM's 1,024 rows of 18 bits, from the ``.bram_init`` sections."""
    blocks = []
    for section in re.split(r"^\.bram_init \d+\n", config, flags=re.M)[1:]:
        words = [int(w, 16) for w in section.split(".", 1)[0].split()[:2048]]
        assert len(words) == 2048, len(words)
        blocks.append([words[2 * r] | words[2 * r + 1] << 9 for r in range(1024)])
    return blocks


def words_at(rows: list[int], width: int) -> list[int]:
    """The block's contents read as ``width``-bit words."""
    if width == 36:
        return [rows[2 * a] | rows[2 * a + 1] << 18 for a in range(512)]
    if width == 18:
        return list(rows)
    if width == 9:
        return [rows[a >> 1] >> 9 * (a & 1) & 0x1FF for a in range(2048)]
    data = [sum((row >> (b if b < 8 else b + 1) & 1) << b for b in range(16)) for row in rows]
    per_row = 16 // width
    return [data[a // per_row] >> (a % per_row) * width & ((1 << width) - 1)
            for a in range(1024 * per_row)]


def columns(words: list[int], width: int) -> list[tuple[int, ...]]:
    return [tuple(w >> b & 1 for w in words) for b in range(width)]


def expected_roms(image=None) -> dict[str, tuple[list[int], int]]:
    """The ROMs the engine's tables give, as hdl.gen.rom builds them: name -> (words, width)."""
    orthodox = variant_image()
    image = image or orthodox.dense
    word_bits = orthodox.geometry.word_bits
    walk = [w | e << word_bits for w, e in zip(image.words, image.ends)]
    block, _ = split_starts(image.starts, image.addr_bits)  # pawns' fields: logic
    return {"walk ROM": (walk, word_bits + END_BITS),
            "start entries": (block, 6 + image.addr_bits)}


def missing_columns(config: str, roms=None) -> list[str]:
    """The ROM bit columns no block RAM of ``config`` holds: an empty list when every word of
    every ROM is in the bitstream."""
    roms = roms or expected_roms()
    present = set()
    for rows in bram_rows(config):
        for width in WIDTHS:
            for column in columns(words_at(rows, width), width):
                present.add(column)
    missing = []
    for name, (words, width) in roms.items():
        for bit, column in enumerate(columns(words, width)):
            found = any(len(c) >= len(column) and c[:len(column)] == column
                        and not any(c[len(column):]) for c in present)
            if not found:
                missing.append(f"{name} bit {bit}")
    return missing
