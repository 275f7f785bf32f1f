"""The posdata ROM's contents and addressing, from engine's tables (never a copy). Plain Python
(no amaranth): the gateware (``hdl.rom``) and the cycle model (``sim.model``) both read it.

Word: ``nextpos | nextdir << 6`` (12 bits). Address: ``table << 12 | from << 6 | to``, where
``table`` is the ptype with BPAWN (7) folded onto the unused slot 0, so 7 tables fill
7 * 4096 = 28672 words. Beside each word two bits derived from the same tables: whether
nextpos, and whether nextdir, leads back to the from-square (see ``hdl.rom`` for why).
"""

from posdata.engine.defs import BPAWN, N_PTYPES
from posdata.engine.posdata import NEXTDIR, NEXTPOS

WORD_BITS = 12
END_BITS = 2
ADDR_BITS = 15
ROM_DEPTH = 7 * 4096


def table_index(ptype: int) -> int:
    return 0 if ptype == BPAWN else ptype


def rom_address(ptype: int, frm: int, to: int) -> int:
    return table_index(ptype) << 12 | frm << 6 | to


def rom_image() -> list[int]:
    image = [0] * ROM_DEPTH
    for pt in range(1, N_PTYPES):
        words = NEXTPOS[pt].astype(int) | NEXTDIR[pt].astype(int) << 6  # [from][to]
        base = table_index(pt) << 12
        image[base:base + 4096] = words.reshape(-1).tolist()
    return image


def end_image(words: list[int] | None = None) -> list[int]:
    """Per ROM address: bit 0 = (nextpos == from), bit 1 = (nextdir == from), derived from
    ``words`` (default: ``rom_image()``)."""
    if words is None:
        words = rom_image()
    return [int(w & 63 == a >> 6 & 63) | int(w >> 6 == a >> 6 & 63) << 1
            for a, w in enumerate(words)]
