"""A perft thread's control: the node loop, depth first, TSCP style.

* **Generate** the node at ``ply``: the generator core streams its pseudo-legal moves and the
  legality collector stores the legal ones on the move stack (at a bulk count's last ply it counts
  them instead; at a plain count's last ply it stores them all).
* **Descend**: read the ply's next move off the stack (a promotion entry once per piece of the
  promotion set), hand it to make/unmake, and generate the child once it is made.
* **Return**: when a ply's moves are done, go up, have the move that led here unmade, and go on
  with the parent's next move. At a plain count's last ply make/unmake makes, tests and unmakes
  each move in one go.

Threads count independent subtrees: at the *split* ply every node must be claimed from a counter
shared by all threads (``claim``): a thread descends into the i-th node it reaches at that ply
only if the counter stands at i; otherwise another thread has it. The plies above the split are
walked by every thread.

While idle the control also lists the root's moves: pseudo-legal, straight from the generator
core (``listing.start``), or legal (``listing.legal``: the root generated as an interior node,
its legal moves then read off the stack).
"""

from types import SimpleNamespace

from amaranth import Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..common.contract import CLAIM_BITS, DEPTH_BITS, MAX_PLIES, Phase
from ..common.layouts import MoveLayout
from .legality import CollectorControl
from .make_unmake import SequencerControl
from .move_stack import hand, stack_control
from .ports import CountControl, Listing

#: a thread asks the shared claim counter for the node it has numbered ``index``
ClaimPort = wiring.Signature({
    "req": Out(1),
    "index": Out(CLAIM_BITS),
    "grant": In(1),              # registered: the claim of the previous clock succeeded
    "next": In(CLAIM_BITS),      # the counter: nodes below it are taken
})

#: the generator core as the control drives it (``cycles``: its clocks, for a listing's report)
CoreControl = wiring.Signature({"start": Out(1), "expand": Out(1), "done": In(1),
                                "cycles": In(32)})


class ThreadControl(wiring.Component):
    """Ports
    -----
    count : In(CountControl)
        Count perft(``depth``) (bulk or plain); nodes at ply ``split`` are claimed. (ABORT
        resets the thread: the control does not read it.)
    listing : In(Listing)
        List the root's moves (pseudo-legal, or legal).
    busy : Out
        Counting, or listing moves.
    claim : Out(ClaimPort)
    core : Out(CoreControl)
    generated : In(stream.Signature(MoveLayout))
        The core's moves, taken here only when listing them pseudo-legal.
    stack : Out(stack_control()), hand : In(hand(entry))
        The move stack.
    sequencer : Out(SequencerControl)
        Make/unmake.
    collector : Out(CollectorControl)
        The legality collector.
    phase : Out(Phase)
        Observation only: where the clock goes.

    Parameters
    ----------
    entry : data.Layout
        A stack entry (``hdl.chip.move_stack.stack_entry``).
    """

    def __init__(self, entry):
        super().__init__({
            "count": In(CountControl), "listing": In(Listing), "busy": Out(1),
            "claim": Out(ClaimPort), "core": Out(CoreControl),
            "generated": In(stream.Signature(MoveLayout)),
            "stack": Out(stack_control()), "hand": In(hand(entry)),
            "sequencer": Out(SequencerControl), "collector": Out(CollectorControl),
            "phase": Out(Phase),
        })

    def elaborate(self, platform):
        m = Module()
        r = SimpleNamespace(
            depth=Signal(DEPTH_BITS, name="depth"), bulk=Signal(name="bulk"),
            split=Signal(DEPTH_BITS, name="split"), ply=Signal(range(MAX_PLIES), name="ply"),
            busy=Signal(name="busy"), gen_mode=Signal(name="gen_mode"),
            listing=Signal(name="listing"),    # listing the root's legal moves
            draining=Signal(name="draining"),  # in "Drain": the node's first entry is read next
            skipping=Signal(name="skipping"),  # in "Skip": the entry in hand is another thread's
            counting=Signal(name="counting"),  # the ply's node counts its legal moves ...
            store_all=Signal(name="store_all"),  # ... or stores every pseudo-legal move
            phase=Signal(Phase, name="phase"))
        m.d.comb += [self.busy.eq(r.busy), self.core.expand.eq(r.gen_mode),
                     self.stack.ply.eq(r.ply), self.stack.draining.eq(r.draining),
                     self.stack.listing.eq(r.listing), self.stack.skipping.eq(r.skipping),
                     self.phase.eq(r.phase)]

        # What the ply's node does, registered: a clock behind ``ply``, which is never read in
        # the clock after it changes (a node is generated, or a move made, first), and off the
        # board's write path.
        remaining = Signal(5)
        m.d.comb += remaining.eq(r.depth - r.ply)
        frontier = remaining == 1
        m.d.sync += [r.counting.eq(frontier & r.bulk), r.store_all.eq(frontier & ~r.bulk)]
        m.d.comb += [self.collector.counting.eq(r.counting),
                     self.collector.store_all.eq(r.store_all),
                     self.sequencer.store_all.eq(r.store_all)]

        r.claims, r.taken, r.asked, r.granted = self._claim_registers(m)
        r.listed = self._listing_port(m, r.gen_mode, r.listing)
        with m.FSM(name="thread"):
            self._idle_states(m, r)
            self._node_states(m, r)
            self._listing_states(m, r)
            self._descent_states(m, r)
        return m

    # --- what several states do ---------------------------------------------------------------

    def _on_start(self, m, r):
        count = self.count
        m.d.sync += [r.depth.eq(count.depth), r.bulk.eq(count.bulk), r.split.eq(count.split),
                     r.ply.eq(0), r.claims.eq(0)]
        m.d.comb += [self.stack.start.eq(1), self.collector.clear.eq(1),
                     self.sequencer.load.eq(1)]

    def _leave_node(self, m, r):
        """The node at ``ply`` is counted: back to its parent, to unmake the move that led here
        (or, at the root, finish)."""
        with m.If(r.ply == 0):
            m.next = "Finish"
        with m.Else():
            m.d.sync += r.ply.eq(r.ply - 1)
            m.d.comb += self.sequencer.flip.eq(1)
            m.next = "Return"

    def _advance(self, m, r, promote, last):
        """Done with the ply's current move (made and unmade, or another thread's): its next
        promotion piece, or the next entry, or (``last``, known since the entry was read, so no
        comparison sits on this path) out of the node."""
        with m.If(promote & self.hand.promo_more):
            m.d.comb += self.stack.next_promo.eq(1)
            m.next = "Read"  # the same entry, its next promotion piece
        with m.Else():
            m.d.comb += self.stack.next_entry.eq(1)
            with m.If(last):
                self._leave_node(m, r)
            with m.Else():
                m.next = "Read"  # the next entry

    def _make(self, m):
        m.d.comb += self.sequencer.make.eq(1)
        m.next = "Moving"

    # --- the states -----------------------------------------------------------------------

    def _idle_states(self, m, r):
        """Idle (a count or a listing begins), the pseudo-legal listing, the root's claim, and
        the end of a count."""
        with m.State("Idle"):
            m.d.comb += self.sequencer.host_ok.eq(1)
            with m.If(self.count.start):
                self._on_start(m, r)
                m.d.sync += r.busy.eq(1)
                with m.If((self.count.depth == 0) | (self.count.split == 0)):
                    # the root is one thread's (perft(0) is one leaf, counted once)
                    m.next = "Claim-Root"
                with m.Else():
                    m.next = "Generate"
            with m.Elif(self.listing.start & self.listing.legal):
                # the root generated as an interior node: its legal moves on the stack
                self._on_start(m, r)
                m.d.sync += [r.depth.eq(2), r.bulk.eq(1), r.split.eq(0), r.listing.eq(1),
                             r.busy.eq(1)]
                m.next = "Generate"
            with m.Elif(self.listing.start):
                m.d.sync += [r.gen_mode.eq(1), r.busy.eq(1)]
                m.d.comb += self.sequencer.load.eq(1)
                m.next = "Gen-Mode"

        # generate mode: the root's moves go out on self.moves
        with m.State("Gen-Mode"):
            m.d.comb += self.core.start.eq(1)
            m.next = "Gen-Mode-Wait"
        with m.State("Gen-Mode-Wait"):
            m.d.comb += self.generated.ready.eq(self.listing.moves.ready)
            with m.If(self.core.done):
                m.d.sync += [r.gen_mode.eq(0), r.busy.eq(0)]
                m.next = "Idle"

        with m.State("Claim-Root"):
            m.d.comb += [r.phase.eq(Phase.CLAIM), self.claim.req.eq(1)]
            with m.If(r.granted):
                with m.If(r.depth == 0):
                    m.d.comb += self.collector.one.eq(1)
                    m.next = "Finish"
                with m.Else():
                    m.next = "Generate"
            with m.Elif(r.taken & r.asked):
                m.next = "Finish"

        # the last results may still be in the unit
        with m.State("Finish"):
            m.d.comb += r.phase.eq(Phase.DRAIN)
            with m.If(self.collector.idle):
                m.next = "Done"
        with m.State("Done"):
            m.d.sync += r.busy.eq(0)
            m.next = "Idle"

    def _node_states(self, m, r):
        """Generate the node at ``ply``: its moves onto the stack (or counted)."""
        with m.State("Settle"):
            # the move's last write reaches the board's planes (hdl.chip.chessboard)
            m.d.comb += r.phase.eq(Phase.MAKE)
            m.next = "Generate"
        with m.State("Generate"):
            # this ply's moves start where the parent's ended (the stack top)
            m.d.comb += [r.phase.eq(Phase.GENERATE), self.core.start.eq(1),
                         self.stack.open.eq(1), self.collector.open.eq(1)]
            m.next = "Collect"
        with m.State("Collect"):
            m.d.comb += [r.phase.eq(Phase.GENERATE), self.collector.collect.eq(1)]
            with m.If(self.core.done):
                m.d.sync += r.draining.eq(1)
                m.next = "Drain"
        with m.State("Drain"):
            m.d.comb += r.phase.eq(Phase.DRAIN)
            with m.If(self.collector.quiet & ~self.stack.pushing):
                m.d.sync += r.draining.eq(0)
                with m.If(r.counting):
                    self._leave_node(m, r)
                with m.Else():
                    m.d.comb += self.stack.close.eq(1)
                    with m.If(r.listing):
                        m.next = "List-Read"
                    with m.Elif(self.stack.empty):
                        self._leave_node(m, r)  # no legal move
                    with m.Else():
                        m.next = "Read"  # ``draining``: the node's first entry

    def _listing_states(self, m, r):
        """The root's legal moves, read off the stack and sent."""
        listed = r.listed
        with m.State("List-Read"):
            # the stack is read at the cursor (``listing``)
            with m.If(self.stack.at_end):
                m.d.sync += r.listing.eq(0)
                m.next = "Done"
            with m.Else():
                m.next = "List-Hold"
        with m.State("List-Hold"):
            # the block RAM's late output into a register before it leaves the thread
            m.d.comb += self.stack.take.eq(1)
            m.next = "List-Send"
        with m.State("List-Send"):
            entry = self.hand.entry
            m.d.comb += [listed.valid.eq(1), listed.payload.frm.eq(entry.frm),
                         listed.payload.to.eq(entry.to)]
            with m.If(entry.promote):
                m.d.comb += [listed.payload.flags.promotion.eq(1),
                             listed.payload.promo.eq(self.hand.piece)]
            with m.If(self.listing.moves.ready):
                with m.If(entry.promote & self.hand.promo_more):
                    m.d.comb += self.stack.next_promo.eq(1)
                with m.Else():
                    m.d.comb += self.stack.next_entry.eq(1)
                m.next = "List-Read"

    def _descent_states(self, m, r):
        """The ply's next move off the stack (claimed at the split ply), made and unmade."""
        with m.State("Read"):
            # nothing decided here depends on the entry arriving
            m.d.comb += [r.phase.eq(Phase.NEXT), self.stack.take.eq(1)]
            with m.If(r.store_all):
                self._make(m)
            with m.Elif(r.ply + 1 == r.split):
                m.next = "Claim"
            with m.Else():
                self._make(m)
        with m.State("Claim"):
            m.d.comb += [r.phase.eq(Phase.CLAIM), self.claim.req.eq(1)]
            with m.If(r.granted):
                m.d.sync += r.claims.eq(r.claims + 1)
                self._make(m)
            with m.Elif(r.taken & r.asked):
                m.d.sync += [r.claims.eq(r.claims + 1),  # another thread's: on to the next
                             r.skipping.eq(1)]
                m.next = "Skip"
        with m.State("Skip"):
            # a clock of its own, so that ``taken`` (registered from the counter's compare)
            # does not reach the stack's read address through the control
            m.d.comb += r.phase.eq(Phase.CLAIM)
            m.d.sync += r.skipping.eq(0)
            self._advance(m, r, self.hand.entry.promote, self.hand.last)

        # make/unmake runs the move; then down a ply, or on with the next move
        with m.State("Moving"):
            m.d.comb += r.phase.eq(self.sequencer.phase)
            with m.If(self.sequencer.made):
                m.d.sync += r.ply.eq(r.ply + 1)
                m.next = "Settle"
            with m.If(self.sequencer.unmade):
                made = self.hand.made
                self._advance(m, r, made.move.promote, made.last)
        with m.State("Return"):
            # back at the parent's ply: its records, from the RAM; then unmake
            m.d.comb += [r.phase.eq(Phase.UNMAKE), self.stack.reload.eq(1),
                         self.sequencer.unmake.eq(1)]
            m.next = "Moving"

    def _claim_registers(self, m):
        """The claim port's registers: nodes numbered so far at the split ply, and what the
        counter said of the node asked for."""
        claims = Signal(CLAIM_BITS)
        m.d.comb += self.claim.index.eq(claims)
        # the node this thread asks for is already another's: registered (a 32-bit comparison in
        # front of the stack's address would not fit in the clock). ``claims`` stays put while a
        # thread asks, so a clock's delay only makes it wait a clock more. ``asked``: the thread
        # has asked for a clock already, so ``taken`` was worked out from this count's counter
        # and this node's number (not the last count's)
        taken = Signal()
        asked = Signal()
        m.d.sync += [taken.eq(self.claim.next > claims), asked.eq(self.claim.req)]
        # the grant comes from the chip's one counter, which may sit across the chip: registered
        # here, so that its route does not end in the stack's read address. A grant a clock later
        # finds ``taken`` set as well, so it goes first; the counter has moved on, so asking a
        # clock longer cannot win twice.
        granted = Signal()
        m.d.sync += granted.eq(self.claim.grant)
        return claims, taken, asked, granted

    def _listing_port(self, m, gen_mode, listing):
        """The thread's move output: the root's legal moves off the stack while ``listing``
        (the stream returned, which "List-Send" drives), else the core's while ``gen_mode``."""
        listed = stream.Signature(MoveLayout).create()
        moves = self.listing.moves
        m.d.comb += [
            moves.payload.eq(Mux(listing, listed.payload, self.generated.payload)),
            moves.valid.eq(Mux(listing, listed.valid, self.generated.valid & gen_mode)),
            self.listing.cycles.eq(self.core.cycles),
        ]
        return listed
