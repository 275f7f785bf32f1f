"""The victim scan (docs/chip_search.md, "The pipelined thread": stages V1 to V3): the enemy
pieces the side to move attacks, in the capture finder's order (queens, rooks, bishops,
knights, pawns; each kind by ascending square), one a clock into a queue of ``QUEUE`` entries.

The 320 candidate squares (five kinds by 64 squares) are read as 40 bytes in that order:

* a restart registers the cursor's window (per kind: after the cursor's kind or at it; per
  square: at or after the cursor's square, strictly after with ``after``) and which en passant
  victim an own pawn stands beside;
* V1: per kind the candidate mask, plane & enemy & ``attacked`` & the window (the en passant
  victim added: its captors do not attack its square); per byte whether it is non-empty, its
  lowest bit and the bits above it, registered. The non-empty bits are taken into
  ``remaining`` once, when the map is the node's;
* V2: the lowest remaining byte, one-hot, into ``next`` (taken off ``remaining``);
* V3: the current byte's lowest bit is the next victim; when the current byte is empty, the
  lowest bit of the byte ``next`` names, and that byte's other bits become the current byte.

So a victim goes into the queue every clock while there are any and the queue has room.
"""

from amaranth import Cat, Const, Module, Mux, ResetInserter, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..chip.attack import AttackPlanes
from ..common.layouts import SQUARE
from ..common.priority import lowest_one_hot, select
from ..common.shift_fifo import ShiftFIFO
from .attack_map import LATENCY as MAP_LATENCY
from .finder import VICTIM_KINDS

QUEUE = 4  #: the victim queue's entries
BYTES = VICTIM_KINDS * 8

#: where a scan starts: the finder's victim cursor; ``new_map``: the planes have just changed,
#: so the scan waits for the attack map to catch up
ScanCursor = data.StructLayout({"kind": 3, "sq": SQUARE, "after": 1, "new_map": 1})

#: a victim: its kind (0 queen .. 4 pawn) and square
Victim = data.StructLayout({"kind": 3, "sq": SQUARE})


def _lowest_index(bits):
    """Index of the lowest set bit of an 8-bit value (7 when none)."""
    index = Const(7, 3)
    for i in reversed(range(7)):
        index = Mux(bits[i], i, index)
    return index


class VictimScan(wiring.Component):
    """Ports
    -----
    planes : In(AttackPlanes); side : In(1); ep_valid : In(1); ep_sq : In(SQUARE)
        The node: its board, side to move and en passant square, unchanged from a restart on.
    attacked : In(64)   the attack map (``AttackMap``), ``MAP_LATENCY`` clocks behind the planes
    restart : In(stream.Signature(ScanCursor))   start again from a cursor: whatever was found
                        or queued is dropped
    victims : Out(stream.Signature(Victim))      the queue's head
    done : Out(1)       no victim left to send (from the clock after a restart)
    """

    planes: In(AttackPlanes)
    side: In(1)
    ep_valid: In(1)
    ep_sq: In(SQUARE)
    attacked: In(64)
    restart: In(stream.Signature(ScanCursor, always_ready=True))
    victims: Out(stream.Signature(Victim))
    done: Out(1)

    def elaborate(self, platform):
        m = Module()
        p, side, go = self.planes, self.side, self.restart.valid
        queue = ResetInserter(go)(ShiftFIFO(width=Victim.size, depth=QUEUE))
        m.submodules.queue = queue
        m.d.comb += [self.victims.valid.eq(queue.r_rdy), self.victims.payload.eq(queue.r_data),
                     queue.r_en.eq(self.victims.ready)]

        # --- the restart: the window, the en passant victim, when to load --------------------
        later = Signal(VICTIM_KINDS)  # kind k comes after the cursor's kind
        at = Signal(VICTIM_KINDS)     # kind k is the cursor's kind
        here = Signal(64)             # square i is at or after the cursor's square
        ep_files = Signal(8)          # the en passant victim's file, if an own pawn is beside it
        cur = self.restart.payload
        white_pawns, black_pawns = p.pawn & p.occupied & ~p.black, p.pawn & p.black
        row = Mux(side, black_pawns[24:32], white_pawns[32:40])  # own pawns on the victim's rank
        beside = ((row << 1) | (row >> 1))[:8]
        with m.If(go):
            # written so that no comparison is constant (Verilator's lint refuses those)
            m.d.sync += [
                later.eq(Cat(*((cur.kind < k) if k else 0 for k in range(VICTIM_KINDS)))),
                at.eq(Cat(*(cur.kind == k for k in range(VICTIM_KINDS)))),
                here.eq(Cat(*((cur.sq < i if i else 0) | (~cur.after & (cur.sq == i))
                              for i in range(64)))),
                ep_files.eq(Mux(self.ep_valid, (Const(1, 8) << self.ep_sq[:3])[:8] & beside, 0)),
            ]
        # the non-empty bytes go into ``remaining`` once the map is the node's: MAP_LATENCY - 1
        # clocks after a restart, MAP_LATENCY after one with new planes
        load = Signal()
        waiting = Signal(MAP_LATENCY - 1)
        m.d.sync += [waiting.eq(Mux(go, cur.new_map << (MAP_LATENCY - 2), waiting >> 1)),
                     load.eq(Mux(go, ~cur.new_map, waiting[0]))]

        # --- V1: the masks, per byte non-empty, its lowest bit and the rest --------------------
        enemy = Mux(side, p.occupied & ~p.black, p.black)
        kinds = [p.orth & p.diag, p.orth & ~p.diag, p.diag & ~p.orth, p.knight, p.pawn]
        ep_rank = Mux(side, Const(1 << 3, 8), Const(1 << 4, 8))  # the en passant victim's rank
        ep_bits = Cat(*(ep_files[i % 8] & ep_rank[i // 8] for i in range(64)))
        nonempty = Signal(BYTES)
        lows = [Signal(3, name=f"low{b}") for b in range(BYTES)]
        rests = [Signal(8, name=f"rest{b}") for b in range(BYTES)]
        for k, plane in enumerate(kinds):
            reach = self.attacked | ep_bits if k == VICTIM_KINDS - 1 else self.attacked
            mask = Signal(64, name=f"mask{k}")
            window = Cat(*(later[k] | (at[k] & here[i]) for i in range(64)))
            m.d.comb += mask.eq(plane & enemy & reach & window)
            for byte in range(8):
                bits, b = mask[8 * byte:8 * byte + 8], 8 * k + byte
                m.d.comb += nonempty[b].eq(bits.any())
                m.d.sync += [lows[b].eq(_lowest_index(bits)), rests[b].eq(bits & (bits - 1))]

        # --- V2: the lowest remaining byte ----------------------------------------------------
        remaining = Signal(BYTES)
        nxt = Signal(BYTES)
        nxt_valid = Signal()
        cur_rest = Signal(8)   # the current byte's bits not yet sent
        cur_byte = Signal(6)   # its index: kind * 8 + byte
        lowest = lowest_one_hot(m, remaining, "lowest")
        busy = cur_rest.any()
        take = ~busy & nxt_valid & queue.w_rdy  # V3 starts on the byte ``next`` names
        with m.If(go):
            m.d.sync += [remaining.eq(0), nxt_valid.eq(0), cur_rest.eq(0)]
        with m.Elif(load):
            m.d.sync += remaining.eq(nonempty)
        with m.Elif(~nxt_valid | take):
            m.d.sync += [nxt.eq(lowest), nxt_valid.eq(remaining.any()),
                         remaining.eq(remaining & ~lowest)]

        # --- V3: the next victim into the queue -----------------------------------------------
        nxt_byte = Signal(6)
        m.d.comb += nxt_byte.eq(Cat(*(Cat(*(nxt[b] for b in range(BYTES) if b >> j & 1)).any()
                                      for j in range(6))))
        found = Signal(Victim)
        m.d.comb += [
            found.kind.eq(Mux(busy, cur_byte[3:], nxt_byte[3:])),
            found.sq.eq(Cat(Mux(busy, _lowest_index(cur_rest), select(nxt, lows)),
                            Mux(busy, cur_byte[:3], nxt_byte[:3]))),
            queue.w_data.eq(found),
            queue.w_en.eq(busy | nxt_valid),
        ]
        with m.If(~go & busy & queue.w_rdy):
            m.d.sync += cur_rest.eq(cur_rest & (cur_rest - 1))
        with m.Elif(~go & take):
            m.d.sync += [cur_rest.eq(select(nxt, rests)), cur_byte.eq(nxt_byte)]

        m.d.comb += self.done.eq(~load & ~waiting.any() & ~remaining.any() & ~nxt_valid & ~busy
                                 & ~queue.r_rdy)
        return m
