"""The hardware contract: what the gateware, the host and the C++ entries of the compiled models
must agree on, in plain Python (no amaranth at import), defined once.

* **Sizes** of the perft chip: threads per engine, the move stack, the ply records, the claim
  counter's width.
* **Phases**: where a thread's clock goes, per clock (an observation output the cycle accounts
  sum).
* **Castling squares** per position (Chess960): how the host packs each right's king files,
  must-be-empty squares and rook file into the words the gateware takes with the root.
"""

import enum

from posdata.engine.defs import BLACK, CASTLES, WHITE

# --- sizes ---------------------------------------------------------------------------------

THREADS = 2         #: threads per perft engine: one per port of the dual-ported ROMs
STACK_DEPTH = 4096  #: move stack entries (docs/architecture.md: 12 plies x 323 <= 4096)
MAX_PLIES = 16      #: ply records (undo, first/end, cursor); depth is at most MAX_PLIES - 1
CLAIM_BITS = 32     #: the claim counter: nodes numbered at the split ply in one count


# --- phases --------------------------------------------------------------------------------

class Phase(enum.IntEnum):
    """What a perft thread is doing, per clock (an observation output for cycle accounts)."""
    IDLE = 0
    GENERATE = 1   #: the generator core runs (and legality queries with it)
    DRAIN = 2      #: waiting for the last legality results of a node
    MAKE = 3
    UNMAKE = 4
    NEXT = 5       #: reading the next move off the stack
    CLAIM = 6
    LEAF = 7       #: plain counting: testing a made leaf


# --- castling, per position ----------------------------------------------------------------

#: one right's squares: king from-file, king to-file, the back rank's must-be-empty mask
CASTLE_FIELDS = (("king_from", 3), ("king_to", 3), ("empty", 8))
CASTLE_SLOT_BITS = sum(bits for _, bits in CASTLE_FIELDS)
CASTLING_BITS = 4 * CASTLE_SLOT_BITS  #: the four rights in engine.defs order: WK WQ BK BQ


def castle_slot(c) -> int:
    """An engine.defs.Castle record as one slot's bits."""
    empty = 0
    for sq in c.empty:
        empty |= 1 << (sq & 7)
    return (c.king_from & 7) | (c.king_to & 7) << 3 | empty << 6


def _slots(castles) -> list:
    """Per right, the position's Castle record, or orthodox chess's where it has none (its right
    is clear then, so the slot is never read)."""
    out = []
    for side in (WHITE, BLACK):
        slots = {c.right: c for c in CASTLES[side]}
        slots.update({c.right: c for c in castles[side]})
        out += slots.values()
    return out


def castling_word(castles=CASTLES) -> int:
    """The castling input of the gateware for ``board.castles`` (per side, its Castle records):
    each right's slot."""
    word = 0
    for c in _slots(castles):
        word |= castle_slot(c) << (c.right.bit_length() - 1) * CASTLE_SLOT_BITS
    return word


def castling_fields(word: int) -> list[dict]:
    """A castling word as per-right field values (an Amaranth initialiser)."""
    out = []
    for slot in range(4):
        bits, fields_ = word >> slot * CASTLE_SLOT_BITS, {}
        for name, width in CASTLE_FIELDS:
            fields_[name], bits = bits & ((1 << width) - 1), bits >> width
        out.append(fields_)
    return out


ORTHODOX_CASTLING = castling_fields(castling_word())  #: the gateware's default


#: the perft chip's Chess960 castling also needs each right's rook from-file (3 bits a right,
#: in the castling word's order): it moves the rook and clears the right when the rook moves
ROOK_FILE_BITS = 3
CASTLE_ROOKS_BITS = 4 * ROOK_FILE_BITS


def castle_rooks_word(castles=CASTLES) -> int:
    """Per right, the rook's from-file (orthodox where the position has no such castling)."""
    word = 0
    for c in _slots(castles):
        word |= (c.rook_from & 7) << (c.right.bit_length() - 1) * ROOK_FILE_BITS
    return word


#: per right, the rook's from-file in orthodox chess (an Amaranth initialiser)
ORTHODOX_ROOKS = [castle_rooks_word() >> ROOK_FILE_BITS * i & 7 for i in range(4)]
