"""The hardware contract: what the gateware, the host and the C++ entries of the compiled models
must agree on, in plain Python (no amaranth at import), defined once.

* **Sizes** of the perft chip: threads per engine, the move stack, the ply records, the deepest
  count, the widths of its depth, engine and count ports, the claim counter's width; the ROM
  layouts.
* **Phases**: where a thread's clock goes, per clock (an observation output the cycle accounts
  sum), and the names the host gives them.
* **Square codes**: a square's colour and piece as one code (what LOAD and UPDATE carry and the
  compiled chip's entry unpacks) and the root's side, castling rights and en passant square as
  one word.
* **The split rule**: the ply whose nodes the threads claim, when the host chooses it.
* **The search job**: its limits (the reference's, engine.search.leaf_search) and SEARCH's argument
  bytes, which the search board's front end reads and the host packs.
* **Castling squares** per position (Chess960): how the host packs each right's king files,
  must-be-empty squares and rook file into the words the gateware takes with the root.

The C++ entries get these values as generated constants (sim.models.entry_constants), not as
copies of their own.
"""

import enum

from posdata.engine.rules.defs import BLACK, CASTLES, EMPTY, KING, NO_PIECE, NO_SQUARE, PAWN, WHITE
from posdata.engine.search.leaf_search import (  # noqa: F401  (the job's limits, stated there once)
    MAX_EXTENSIONS,
    MAX_JOB_DEPTH,
    MAX_JOB_PLY,
    WINDOW,
)

# --- sizes ---------------------------------------------------------------------------------

THREADS = 2         #: threads per perft engine: one per port of the dual-ported ROMs
STACK_DEPTH = 4096  #: move stack entries (docs/architecture.md: 12 plies x 323 <= 4096)
MAX_PLIES = 16      #: ply records (undo, first/end, cursor); depth is at most MAX_PLIES - 1
MAX_DEPTH = 12      #: the deepest count: the move stack holds 12 plies of the largest position
DEPTH_BITS = 4      #: the chip's depth and split inputs
CLAIM_BITS = 32     #: the claim counter: nodes numbered at the split ply in one count
COUNT_BITS = 64     #: the chip's leaves and clocks outputs
ENGINE_BITS = 8     #: the chip's solo_engine input: engines are numbered below 1 << ENGINE_BITS
#: the compiled chip's "no solo engine": its start entry counts on every engine
EVERY_ENGINE = 1 << ENGINE_BITS

ROM_LAYOUTS = ("dense", "sparse")  #: the posdata ROMs' layouts (hdl.gen.rom)
DEFAULT_LAYOUT = "dense"

assert MAX_DEPTH < MAX_PLIES <= 1 << DEPTH_BITS
assert DEFAULT_LAYOUT in ROM_LAYOUTS


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


#: the host's name of each phase, in Phase order (cycle accounts, ``perft --json``)
PHASE_NAMES = tuple(p.name.lower() for p in Phase)
assert [int(p) for p in Phase] == list(range(len(Phase)))  # a phase indexes an array of counts


# --- squares -------------------------------------------------------------------------------

SQUARES = 64        #: a board's squares, a1 first, as the chip is loaded
SQUARE_BITS = 6     #: a square's number
COLOR_BITS = 2      #: engine.rules.defs colours: WHITE 0, BLACK 1, EMPTY 2
PIECE_BITS = 3      #: engine.rules.defs pieces: NO_PIECE 0 .. KING 6 (a variant's up to 7)
CODE_BITS = COLOR_BITS + PIECE_BITS  #: a square code
assert SQUARES == 1 << SQUARE_BITS


def square_code(color: int, piece: int) -> int:
    """A square's colour and piece as one code: colour | piece << COLOR_BITS (an empty square
    is 2, a white king 0x18)."""
    return color | piece << COLOR_BITS


def square_codes(board) -> bytes:
    """The square codes of ``board`` (engine.rules.board.Board), a1 first."""
    return bytes(square_code(c, p) for c, p in zip(board.color, board.piece))


EMPTY_CODE = square_code(EMPTY, NO_PIECE)

#: every square code of orthodox chess (``valid_square_codes`` per variant)
VALID_SQUARE_CODES = frozenset({EMPTY_CODE} | {
    square_code(c, p) for c in (WHITE, BLACK) for p in range(PAWN, KING + 1)})


def valid_square_codes(variant) -> frozenset:
    """The square codes of ``variant``'s positions: its piece codes, either colour."""
    return frozenset({EMPTY_CODE} | {
        square_code(c, p.code) for c in (WHITE, BLACK) for p in variant.pieces})


#: what the chip takes with the root besides its squares (hdl.common.layouts.Position), packed
#: in this order from bit 0
POSITION_FIELDS = (("side", 1), ("castle", 4), ("ep_valid", 1), ("ep_sq", SQUARE_BITS))


def position_fields(board) -> dict[str, int]:
    """The POSITION_FIELDS of ``board`` (engine.rules.board.Board), by name."""
    return {"side": board.side, "castle": board.castle,
            "ep_valid": int(board.ep != NO_SQUARE), "ep_sq": max(board.ep, 0)}


def position_word(board) -> int:
    """The root's side, castling rights and en passant square as one POSITION_FIELDS word."""
    values = position_fields(board)
    word, shift = 0, 0
    for name, bits in POSITION_FIELDS:
        word |= (values[name] & ((1 << bits) - 1)) << shift
        shift += bits
    return word


def root_word(board, modes: bool = False) -> int:
    """What the perft chip takes as its root's position: the POSITION_FIELDS word, and for a
    chip with modes (hdl.chip.modes) en passant's victim above it (Berolina's pawn passes
    diagonally: its square does not follow from the en passant square)."""
    word = position_word(board)
    if modes:
        victim = board.ep_victim()
        word |= max(victim, 0) << sum(bits for _, bits in POSITION_FIELDS)
    return word


# --- the split rule ------------------------------------------------------------------------

#: the ply whose nodes the threads claim: 2, where the initial position has 400 nodes (enough
#: to share among threads), where the host chooses (the board's self-test too)
DEFAULT_SPLIT = 2


def default_split(depth: int) -> int:
    """The split ply of a count of ``depth``: DEFAULT_SPLIT, at most depth - 1 (a node must be
    generated to be split), 0 for depth <= 1."""
    return max(0, min(DEFAULT_SPLIT, depth - 1))


def split_in_range(depth: int, split: int) -> bool:
    """Can a count of ``depth`` split at ``split``? (0 .. depth - 1; 0 when depth <= 1)"""
    return 0 <= split <= max(0, depth - 1)


# --- the search job ------------------------------------------------------------------------

#: SEARCH's job bytes, little-endian: field -> (offset, size in bytes, signed)
SEARCH_ARGUMENTS = {
    "alpha": (0, 2, True), "beta": (2, 2, True), "depth": (4, 1, False), "ply": (5, 1, False),
    "ext": (6, 1, False),
    "fifty": (7, 1, False),  #: the halfmove counter, saturated by the host
}
SEARCH_BYTES = sum(size for _, size, _ in SEARCH_ARGUMENTS.values())
assert sorted(offset for offset, _, _ in SEARCH_ARGUMENTS.values()) == \
    [0, 2, *range(4, SEARCH_BYTES)]  # packed, no gaps


def search_arguments(**values: int) -> bytes:
    """SEARCH's job bytes for ``alpha``, ``beta``, ``depth``, ``ply``, ``ext``, ``fifty``."""
    out = bytearray(SEARCH_BYTES)
    for name, (offset, size, signed) in SEARCH_ARGUMENTS.items():
        out[offset:offset + size] = values[name].to_bytes(size, "little", signed=signed)
    return bytes(out)


# --- castling, per position ----------------------------------------------------------------

#: one right's squares: king from-file, king to-file, the back rank's must-be-empty mask
CASTLE_FIELDS = (("king_from", 3), ("king_to", 3), ("empty", 8))
CASTLE_SLOT_BITS = sum(bits for _, bits in CASTLE_FIELDS)
CASTLING_BITS = 4 * CASTLE_SLOT_BITS  #: the four rights in engine.rules.defs order: WK WQ BK BQ


def castle_slot(c) -> int:
    """An engine.rules.defs.Castle record as one slot's bits."""
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
