"""The capture pipeline (docs/chip_search.md, "The pipelined thread"): the capture finder's
captures as a stream, one candidate a clock when full: the attack map (``AttackMap``), the
victim scan (``VictimScan``) and the aggressor unit (``AggressorUnit``), joined.

The candidates are exactly ``CaptureFinder``'s, in its order (victims by kind, then square; per
victim its aggressors in ``SLOTS`` order), each with its own cursor; the push promotions are not
here (the control's stage P). A restart drops what is in flight and starts from a cursor: the
node's first (all zero, ``new_map`` set when the planes have just become the node's), or a
candidate's own after a made child returns. From a restart in clock R the first candidate is
the stream's in clock R + ``LATENCY`` (R + ``LATENCY_NEW_MAP`` with ``new_map``).
"""

from amaranth import Module
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..chip.attack import AttackPlanes
from ..common.layouts import SQUARE
from .aggressor_unit import AggressorUnit, Candidate, Cursor
from .attack_map import LATENCY as MAP_LATENCY
from .attack_map import AttackMap
from .victim_scan import VictimScan

#: clocks from a restart to its first candidate on the stream: the cursor's window registered,
#: V1-V3, A1-A5
LATENCY = 9
LATENCY_NEW_MAP = LATENCY + MAP_LATENCY - 1  #: the same when the map is computed anew

#: a restart: the cursor, and whether the planes have just changed (the map is not yet theirs)
Restart = data.StructLayout({"cursor": Cursor, "new_map": 1})

#: the pipe as the search control drives it: its restarts, its candidates, its end
Captures = wiring.Signature({"restart": Out(stream.Signature(Restart, always_ready=True)),
                             "candidates": In(stream.Signature(Candidate)), "idle": In(1)})


class CapturePipe(wiring.Component):
    """Ports
    -----
    planes : In(AttackPlanes); side : In(1); ep_valid : In(1); ep_sq : In(SQUARE)
        The node: its board, side to move and en passant square, unchanged from a restart on
        (the map follows the planes ``MAP_LATENCY`` clocks late, whatever the restarts).
    restart : In(stream.Signature(Restart))        start from a cursor
    candidates : Out(stream.Signature(Candidate))  the captures from the cursor on
    idle : Out(1)   no candidate left to come, a clock late (low in the clock after a restart)
    """

    planes: In(AttackPlanes)
    side: In(1)
    ep_valid: In(1)
    ep_sq: In(SQUARE)
    restart: In(stream.Signature(Restart, always_ready=True))
    candidates: Out(stream.Signature(Candidate))
    idle: Out(1)

    def elaborate(self, platform):
        m = Module()
        m.submodules.map = amap = AttackMap()
        m.submodules.scan = scan = VictimScan()
        m.submodules.aggressors = agg = AggressorUnit()
        wiring.connect(m, wiring.flipped(self.planes), amap.planes, scan.planes, agg.planes)
        for part in (amap, scan, agg):
            m.d.comb += part.side.eq(self.side)
        for part in (scan, agg):
            m.d.comb += [part.ep_valid.eq(self.ep_valid), part.ep_sq.eq(self.ep_sq)]
        m.d.comb += scan.attacked.eq(amap.attacked)

        # the scan starts at the cursor's victim (its aggressors from the cursor's slot on)
        go, c = self.restart.valid, self.restart.payload
        m.d.comb += [scan.restart.valid.eq(go), scan.restart.payload.kind.eq(c.cursor.vkind),
                     scan.restart.payload.sq.eq(c.cursor.vsq),
                     scan.restart.payload.new_map.eq(c.new_map),
                     agg.restart.valid.eq(go), agg.restart.payload.eq(c.cursor)]
        wiring.connect(m, scan.victims, agg.victims)
        wiring.connect(m, agg.candidates, wiring.flipped(self.candidates))
        # registered, so that the control's choice to end its captures starts from a register;
        # a restart clears it, so that it is never a clock stale
        m.d.sync += self.idle.eq(scan.done & agg.idle & ~go)
        return m
