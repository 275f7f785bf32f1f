"""The search thread's position hash: the low HASH_BITS of engine.rules.zobrist's hash of the board
(``Board.hash & HASH_MASK``), for the repetition test (hdl/search/repetition.py).

The hash has two parts:

* the **piece hash**, the XOR of the keys of every occupied square, kept by the square writes
  that keep the evaluation's sums (hdl/search/evaluator.py): the host's load, make's and unmake's
  writes. A write XORs in the key of what stood on the square and the key of what lands there.
  Unmake's writes undo make's exactly, so the same XORs restore the parent's hash, with nothing
  stored per ply. The load's first write (a1, ``restart``) starts from an empty board, as the
  sums do, so a load always rebuilds the hash whatever came before (an abort, a board left
  mid-search);
* the **position part**, the keys of the castling rights, the en passant square (if any) and the
  side to move (if black), a pure function of make/unmake's position registers.

The piece keys sit in block RAM with synchronous reads: the old and the new contents' keys of
one write are read in its clock (two read ports) and XOR-ed into the piece hash in the next, so
``hash`` includes a write made in clock t from clock t + ``LAG`` on (writes may come one a
clock). The position part is combinational: ``hash`` follows ``position`` in the same clock.
After make's last write, in clock t, the child's hash is ready in clock t + 2, when the thread
enters the child (its board planes also take two clocks: search_control.SETTLE).
"""

from amaranth import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import Color
from posdata.engine.search.hash_keys import (
    KEY_WORDS,
    castle_key_words,
    ep_key_words,
    hash_key_words,
    side_key_word,
)
from posdata.engine.search.leaf_search import HASH_BITS

from ..common.layouts import SQUARE, Position
from .evaluator import Contents

LAG = 2  #: clocks from a square write (its clock) to the first clock whose ``hash`` includes it


class HashKeeper(wiring.Component):
    """The position hash, kept by square writes.

    Ports
    -----
    en : In(1)
        A square write this clock.
    sq : In(SQUARE)
        The square written.
    old, new : In(Contents)
        What stood there and what lands (colour EMPTY: nothing; the thread's load gives EMPTY
        as old).
    restart : In(1)
        With ``en``: the load's first write. The piece hash before it is taken as empty.
    position : In(Position)
        Side to move, castling rights, en passant square (make/unmake's registers). Only
        ``ep_sq`` on rank 3 or 6 is read (bit 5 and the file), as an en passant square lies.
    hash : Out(HASH_BITS)
        The position's hash: every write LAG clocks ago or earlier, ``position`` now.
    """

    en: In(1)
    sq: In(SQUARE)
    old: In(Contents)
    new: In(Contents)
    restart: In(1)
    position: In(Position)
    hash: Out(HASH_BITS)

    def elaborate(self, platform):
        m = Module()
        pieces = self._piece_hash(m)
        pos = self.position
        castle = Array(Const(w, HASH_BITS) for w in castle_key_words())[pos.castle]
        # engine.search.hash_keys.ep_key_index: bit 5 of the square (rank 6), then its file
        ep = Array(Const(w, HASH_BITS) for w in ep_key_words())[Cat(pos.ep_sq[:3], pos.ep_sq[5])]
        m.d.comb += self.hash.eq(pieces ^ castle ^ Mux(pos.ep_valid, ep, 0)
                                 ^ Mux(pos.side, side_key_word(), 0))
        return m

    def _piece_hash(self, m):
        """The piece hash register: a write's two keys read in its clock, XOR-ed in the next."""
        m.submodules.keys = keys = Memory(shape=HASH_BITS, depth=KEY_WORDS, init=hash_key_words())
        taken = []
        for contents in (self.old, self.new):
            port = keys.read_port()
            on = contents.color != Color.EMPTY
            # engine.search.leaf_eval.pst_address; an empty square reads address 0 (white, no piece,
            # a1), whose word is 0, so the RAM's output needs no mux
            m.d.comb += port.addr.eq(Mux(on, Cat(self.sq, contents.piece, contents.color[0]), 0))
            taken.append(port.data)
        pending = Signal()  # the keys on the ports are a write's
        fresh = Signal()    # ... and it restarts the piece hash
        m.d.sync += [pending.eq(self.en), fresh.eq(self.en & self.restart)]
        pieces = Signal(HASH_BITS)
        with m.If(pending):
            m.d.sync += pieces.eq(Mux(fresh, 0, pieces) ^ taken[0] ^ taken[1])
        return pieces
