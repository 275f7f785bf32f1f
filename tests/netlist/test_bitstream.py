"""The bitstream itself: unpacked (yowasp-ecpunpack), its block RAMs hold the ROM images the
engine's tables give, bit column by bit column (tests/netlist/bitstream.py); a bitstream built
from a ROM image one word off is caught, and so would be a wrongly initialised bit-sliced ROM."""

from pathlib import Path

import pytest

from .bitstream import missing_columns, unpack
from .build import bitstream, design_rtlil
from .rom_fault import one_word_changed

BOARD_BITSTREAM = Path(__file__).resolve().parents[2] / "build" / "synth" / "ulx3s-25f" / \
    "posdata.bit"


def test_generator_bitstream_holds_the_rom_images():
    assert missing_columns(unpack(bitstream())) == []


@pytest.mark.slow
def test_one_word_rom_difference_in_the_bitstream_is_caught():
    with one_word_changed():
        il = design_rtlil()
    missing = missing_columns(unpack(bitstream(il)))
    assert missing and all(m.startswith("walk ROM") for m in missing), missing


@pytest.mark.slow
@pytest.mark.skipif(not BOARD_BITSTREAM.exists(), reason="no board bitstream: run `make synth`")
def test_board_bitstream_holds_the_rom_images():
    """The board's bitstream (``posdata synth``: the perft chip's ROMs) as well."""
    assert missing_columns(unpack(BOARD_BITSTREAM)) == []
