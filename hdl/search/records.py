"""The search thread's interfaces and per-ply records (docs/chip_search.md, "The per-ply state")."""

from amaranth import Signal, Value, signed
from amaranth.lib import data
from amaranth.lib.memory import Memory

from posdata.engine.search.leaf_search import (
    HASH_BITS,
    MAX_EXTENSIONS,
    MAX_JOB_DEPTH,
    MAX_JOB_PLY,
    PLY_RECORDS,
    QS_PLY_LIMIT,
    REPETITION_PLIES,
    WALK_PLIES,
    WINDOW,
)

from ..chip.make_unmake import Undo
from ..common.layouts import SQUARE, MoveLayout
from .evaluator import SCORE
from .finder import SLOT_BITS

STACK_BITS = 12  #: the stage-2 move stack: WALK_PLIES plies that walk, <= 323 moves each and
KILLER_SLOTS = 2  #: ... the killers' two places ahead of them
DEPTH = signed(7)  #: remaining depth: MAX_JOB_DEPTH + MAX_EXTENSIONS down to -QS_PLY_LIMIT
PLY_BITS = 6
EXT_BITS = 3   #: check extensions on the line, 0 .. MAX_EXTENSIONS
FIFTY_BITS = 7  #: the halfmove counter, saturating at 127 (100 is a draw)
HISTORY_BITS = 5  #: the job's earlier positions, 0 .. REPETITION_PLIES - 1 by index
assert PLY_RECORDS + 1 <= 1 << PLY_BITS and WALK_PLIES * (323 + KILLER_SLOTS) <= 1 << STACK_BITS
assert -QS_PLY_LIMIT - 1 >= -(1 << DEPTH.width - 1)
assert MAX_JOB_DEPTH + MAX_EXTENSIONS < 1 << DEPTH.width - 1
assert MAX_EXTENSIONS < 1 << EXT_BITS and REPETITION_PLIES == 1 << HISTORY_BITS

#: a job: the position besides its squares, the window, the depth, the ply from the search root,
#: the check extensions made above it on its line
Job = data.StructLayout({
    "side": 1, "castle": 4, "ep_valid": 1, "ep_sq": SQUARE,
    "alpha": SCORE, "beta": SCORE, "depth": 4, "ply": 7, "ext": EXT_BITS,
})
assert Job.size <= 64  # the compiled models take it as one 64-bit word
assert MAX_JOB_PLY < 1 << Job["ply"].width and MAX_JOB_DEPTH < 1 << Job["depth"].width


def job_refused(alpha, beta, depth, ply, ext):
    """A job no thread takes: engine.search.leaf_search.job_problem in gateware, from the same
    constants (the variant aside: a search board holds orthodox chess alone)."""
    refused = ((depth > MAX_JOB_DEPTH) | (ext > MAX_EXTENSIONS)
               | (alpha < -WINDOW) | (beta > WINDOW) | (alpha >= beta))
    if Value.cast(ply).shape().width > MAX_JOB_PLY.bit_length():  # else it holds no more
        refused |= ply > MAX_JOB_PLY
    return refused

#: the job's past, taken with ``start``: the halfmove counter and how many earlier positions'
#: hashes the host wrote (the last min(fifty, REPETITION_PLIES), oldest first)
Past = data.StructLayout({"fifty": FIFTY_BITS, "length": HISTORY_BITS + 1})

#: one earlier position's hash written by the host while the thread is idle
HistoryWrite = data.StructLayout({"en": 1, "index": HISTORY_BITS, "hash": HASH_BITS})

#: per ply, what the node needs when its child returns
FIELDS = {
    "alpha": SCORE, "beta": SCORE, "depth": DEPTH,
    "stage": 2,                       # 0 push promotions, 1 captures, 2 the walk's moves
    "promo_file": 4,                  # the push promotions' cursor
    "vkind": 3, "vsq": SQUARE, "vvalid": 1, "slot": SLOT_BITS,  # the victim and its aggressors
    "base": STACK_BITS, "ptr": STACK_BITS, "end": STACK_BITS,   # the node's stage-2 moves
    "killed": KILLER_SLOTS,           # the walk found the ply's killers (their places: base +)
    "found": 1,                       # a legal move (full-width: mate or stalemate if none)
    "incheck": 1, "known": 1,         # the side to move in check, once the unit has answered
    "maybe": 1,                       # entered by a move that may give check (may_give_check)
    "evasion": 1,                     # a quiescence node in check: every move, no stand-pat
    "ext": EXT_BITS,                  # check extensions on the line, this node's included
    "fifty": FIFTY_BITS,              # the halfmove counter
    "move": MoveLayout, "undo": Undo,      # the move made, and what unmake needs (make/unmake's)
}
#: records: the job's full-width plies, the quiescence plies, and the limit's node
RECORDS = PLY_RECORDS + 1


class PlyRecords:
    """The current ply's record in registers (``records.alpha``, ...), the others in a memory:
    written as a child is made (``spill``), read back as it is left (``restore``)."""

    def __init__(self):
        self.layout = data.StructLayout(FIELDS)
        self.cur = Signal(self.layout)
        for name in FIELDS:
            setattr(self, name, self.cur[name])
        self.memory = Memory(shape=self.layout, depth=RECORDS, init=[])
        self.write = self.memory.write_port()
        self.read = self.memory.read_port(domain="comb")

    def spill(self, m, ply) -> None:
        """Keep the current record at ``ply`` (comb: within the state that makes a child)."""
        m.d.comb += [self.write.en.eq(1), self.write.addr.eq(ply), self.write.data.eq(self.cur)]

    def restore(self, m, ply) -> None:
        """The record at ``ply`` becomes the current one (sync)."""
        m.d.comb += self.read.addr.eq(ply)
        m.d.sync += self.cur.eq(self.read.data)
