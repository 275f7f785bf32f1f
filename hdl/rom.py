"""The posdata ROM image, taken from engine's tables at elaboration (never a copy).

Word: ``nextpos | nextdir << 6`` (12 bits). Address: ``table << 12 | from << 6 | to``, where
``table`` is the ptype with BPAWN (7) folded onto the unused slot 0, so 7 tables fill
7 * 4096 = 28672 words.
"""

from engine.defs import BPAWN, N_PTYPES
from engine.posdata import NEXTDIR, NEXTPOS

WORD_BITS = 12
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
