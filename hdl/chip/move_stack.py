"""A thread's move stack and per-ply records: TSCP's ``gen_dat`` and ``first_move[ply]`` on chip.

The stack holds the moves of the nodes on the path from the root, each node's after its parent's:
ply p's moves lie between where its node began and ``end[p]``. Per ply the records keep where the
node's moves end, the entry being made (``cursor``), which piece of the promotion set it is made
as (``promo``), and the move made from that ply (``made``: the entry and whether it was the ply's
last), plus whatever records the thread adds (``records``: make/unmake's undo record). A
promotion entry is made once per piece of the side's promotion set. It serves the perft
thread; the search thread keeps a stack and records of its own (hdl/search/search_control.py).

The current ply's records are also kept in registers, written through, so the control reads
registers, not distributed RAM behind the ply number; on the way back up ("reload") the parent's
come from the RAM. What the control asks of them is worked out as they are written (the next
entry, whether promotion pieces remain), so no adder or comparator sits on its paths.

The stack is read every clock at the address the control will read next, worked out from
registers alone (``draining``: the node's first entry; else the cursor, or the same entry again
for its next promotion piece): no state decoding or branch lies on the path into the block RAM's
address. An entry read arrives a clock later (``arriving``) and is taken into the move in hand.

A push beyond ``depth`` entries sets ``overflow``, which stays set until the next start.
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import BLACK, WHITE

from ..common.contract import MAX_PLIES, STACK_DEPTH
from ..common.layouts import PIECE, SQUARE
from .modes import PromotionTable

#: one move on the stack
StackEntry = data.StructLayout({"frm": SQUARE, "to": SQUARE, "promote": 1})


def stack_entry(chess960: bool, modes: bool = False) -> data.StructLayout:
    """A stack entry; Chess960 marks castling (a king's move of one file, or none, may be one),
    a chip with modes en passant (a pawn with modes may step onto the en passant square
    without taking: pawnsideways' sideways step, Berolina's diagonal one)."""
    if not chess960 and not modes:
        return StackEntry
    return data.StructLayout({"frm": SQUARE, "to": SQUARE, "promote": 1,
                              **({"castle": 1} if chess960 else {}),
                              **({"ep": 1} if modes else {})})


def made_layout(entry) -> data.StructLayout:
    """The move made from a ply: its entry, and whether it is the ply's last."""
    return data.StructLayout({"move": entry, "last": 1})


def record_port(shape) -> wiring.Signature:
    """A per-ply record as its user sees it: a write at the current ply, and the current ply's
    value (a register)."""
    return wiring.Signature({"en": Out(1), "data": Out(shape), "q": In(shape)})


def stack_control(plies: int = MAX_PLIES) -> wiring.Signature:
    """The thread control's side of the stack: what to do this clock, and what it needs to know.

    * ``start``: a count begins (the stack empties, ``overflow`` clears).
    * ``open``: a node's generation begins; its moves go where the stack ends now.
    * ``close``: its moves are in: the ply's records point at its first entry.
    * ``next_promo`` / ``next_entry``: on to the entry's next promotion piece, or the next entry.
    * ``reload``: back up at ``ply``: its records from the RAM.
    * ``take``: the entry read (the address of the last clock's) into the move in hand.
    * ``draining``, ``listing``, ``skipping``: the control's registers that choose the address
      read (see the module docstring); ``skipping``: the entry in hand is another thread's.
    * ``empty``: the node stored no move; ``at_end``: the cursor is past the node's last entry;
      ``pushing``: a move is on its way onto the stack.
    """
    return wiring.Signature({
        "start": Out(1), "open": Out(1), "close": Out(1), "next_promo": Out(1),
        "next_entry": Out(1), "reload": Out(1), "take": Out(1),
        "draining": Out(1), "listing": Out(1), "skipping": Out(1),
        "ply": Out(range(plies)),
        "empty": In(1), "at_end": In(1), "pushing": In(1),
    })


def hand(entry) -> wiring.Signature:
    """The move in hand, as the stack gives it: the entry last taken and whether it is its
    ply's last, the promotion piece it is made as, whether more pieces follow, and the move
    made from the current ply."""
    return wiring.Signature({
        "entry": Out(entry), "last": Out(1), "piece": Out(PIECE), "promo_more": Out(1),
        "made": Out(made_layout(entry)),
    })


#: what make and unmake do to the stack: keep the move in hand as the ply's made move (make),
#: drop the child's moves (unmake)
StackUse = wiring.Signature({"record": Out(1), "pop": Out(1)})


class MoveStack(wiring.Component):
    """Ports
    -----
    control : In(stack_control(plies))
        From the thread's control.
    side : In
        The side to move at ``control.ply`` (whose promotion set applies).
    push : In(stream.Signature(entry, always_ready=True))
        A move onto the stack (written a clock later).
    hand : Out(hand(entry))
        The move in hand.
    use : In(StackUse)
        From make and unmake.
    overflow : Out
        A push found the stack full (sticky until the next start).
    <record> : In(record_port(shape)), one per entry of ``records``
        The thread's own per-ply records.

    Parameters
    ----------
    entry : data.Layout
        A stack entry (``stack_entry``).
    promotions : per side, the promotion pieces in generation order (engine.rules.variants)
    records : dict of name -> shape
        Further per-ply records.
    depth, plies : int
        Stack entries and ply records.
    promo_bits : int or None
        The promotion sets as a table of that index width (``hdl.chip.modes.PromotionTable``:
        a chip with modes, one RTL for every variant), else as constants.
    """

    def __init__(self, entry, promotions, records: dict | None = None,
                 depth: int = STACK_DEPTH, plies: int = MAX_PLIES,
                 promo_bits: int | None = None):
        self._entry = entry
        self._promotions = promotions
        self._records = dict(records or {})
        self._depth = depth
        self._plies = plies
        self._by_table = promo_bits is not None
        self._promo_bits = promo_bits if self._by_table else \
            max(1, (max(len(p) for p in promotions) - 1).bit_length())
        clash = set(self._records) & {"control", "side", "push", "hand", "use", "overflow"}
        if clash:
            raise ValueError(f"record names {sorted(clash)} are the stack's own ports")
        super().__init__({
            "control": In(stack_control(plies)), "side": In(1),
            "push": In(stream.Signature(entry, always_ready=True)),
            "hand": Out(hand(entry)), "use": In(StackUse), "overflow": Out(1),
            **{name: In(record_port(shape)) for name, shape in self._records.items()},
        })

    def elaborate(self, platform):
        m = Module()
        ctl = self.control
        depth = self._depth
        self._tables = []

        # An entry used is always read below ``top`` and a push writes at ``top``, so a read
        # never meets a write to its entry: ``no_rw_check`` lets the read return anything on a
        # collision. Yosys honours it only where it merges the register behind a combinational
        # read port itself; behind a synchronous port it keeps read-before-write, which the
        # ECP5's block RAM lacks across its two ports, and builds it in logic (the write delayed
        # a clock, an address compare and a bypass), the compare on the read address's path.
        m.submodules.stack = stack = Memory(shape=self._entry, depth=depth, init=[],
                                            attrs={"no_rw_check": 1})
        stack_w = stack.write_port()
        stack_r = stack.read_port(domain="comb")
        arriving = Signal(self._entry)  # the entry read: it arrives the clock after its address
        m.d.sync += arriving.eq(stack_r.data)

        records, cached = self._ply_records(m)
        end_w, _ = records["end"]
        cursor_w, cursor_r = records["cursor"]
        promo_w, promo_r = records["promo"]
        made_w, _ = records["made"]
        cursor_q, end_q = cached["cursor"][0], cached["end"][0]
        promo_q, made_q = cached["promo"][0], cached["made"][0]

        top = Signal(range(depth + 1))          # next free stack entry
        node_first = Signal(range(depth + 1))   # where the node at ``ply`` stores moves
        # The cursor is written with the node's first entry while draining, else with
        # ``cursor_next``: both incremented before the choice, not the choice then incremented,
        # so the control's branches do not run into a carry chain
        cursor_next = Signal.like(cursor_q)
        with m.If(cursor_w.en):
            m.d.sync += cursor_next.eq(Mux(ctl.draining, node_first + 1, cursor_next + 1))
        promo_more = Signal()
        with m.If(promo_w.en):
            m.d.sync += promo_more.eq(self._more_after(m, promo_w.data))
        cached["cursor_next"] = (cursor_next, cursor_r.data + 1)
        cached["promo_more"] = (promo_more, self._more_after(m, promo_r.data))
        with m.If(ctl.reload):
            m.d.sync += [reg.eq(value) for reg, value in cached.values()]

        # --- pushes: registered, written a clock later at the top ---------------------------
        pushing = Signal()
        pushed = Signal(self._entry)
        m.d.sync += [pushing.eq(self.push.valid), pushed.eq(self.push.payload)]
        m.d.comb += [stack_w.addr.eq(top), stack_w.data.eq(pushed),
                     stack_w.en.eq(pushing & (top != depth))]
        with m.If(pushing):
            with m.If(top == depth):
                m.d.sync += self.overflow.eq(1)
            with m.Else():
                m.d.sync += top.eq(top + 1)
        with m.If(self.use.pop):
            m.d.sync += top.eq(end_q)  # the child's moves leave the stack
        with m.If(ctl.start):
            m.d.sync += [top.eq(0), self.overflow.eq(0)]
        with m.If(ctl.open):
            m.d.sync += node_first.eq(top)

        # --- the ply's records ------------------------------------------------------------
        with m.If(ctl.close):
            m.d.comb += [end_w.en.eq(1), end_w.data.eq(top),
                         cursor_w.en.eq(1), cursor_w.data.eq(node_first),
                         promo_w.en.eq(1), promo_w.data.eq(0)]
        with m.If(ctl.next_promo):
            m.d.comb += [promo_w.en.eq(1), promo_w.data.eq(promo_q + 1)]
        with m.If(ctl.next_entry):
            m.d.comb += [promo_w.en.eq(1), promo_w.data.eq(0),
                         cursor_w.en.eq(1), cursor_w.data.eq(cursor_next)]

        # --- reading: the address from registers alone; the move in hand ------------------
        entry = Signal(self._entry)
        last = Signal()
        # the ply's current move is a promotion with pieces to come: read its entry again
        # (``skipping``: the entry in hand, another thread's; else the move made from the ply)
        same = ctl.listing | promo_more & Mux(ctl.skipping, entry.promote, made_q.move.promote)
        m.d.comb += stack_r.addr.eq(Mux(ctl.draining, node_first,
                                        Mux(same, cursor_q, cursor_next)))
        with m.If(ctl.take):
            # the block RAM answers late in the clock: straight into registers
            m.d.sync += [entry.eq(arriving), last.eq(cursor_next == end_q)]
        m.d.comb += [made_w.en.eq(self.use.record), made_w.data.move.eq(entry),
                     made_w.data.last.eq(last)]

        m.d.comb += [
            ctl.empty.eq(top == node_first), ctl.at_end.eq(cursor_q == end_q),
            ctl.pushing.eq(pushing),
            self.hand.entry.eq(entry), self.hand.last.eq(last), self.hand.made.eq(made_q),
            self.hand.promo_more.eq(promo_more), self.hand.piece.eq(self._piece(m, promo_q)),
        ]
        return m

    def _ply_records(self, m):
        """One memory per record, addressed by the ply, and its register written through:
        ``records[name] = (write port, read port)``, ``cached[name] = (register, RAM data)``."""
        shapes = {"end": range(self._depth + 1), "cursor": range(self._depth + 1),
                  "promo": self._promo_bits, "made": made_layout(self._entry), **self._records}
        records, cached = {}, {}
        for name, shape in shapes.items():
            mem = Memory(shape=shape, depth=self._plies, init=[])
            m.submodules[f"ply_{name}"] = mem
            w, r = mem.write_port(), mem.read_port(domain="comb")
            m.d.comb += [w.addr.eq(self.control.ply), r.addr.eq(self.control.ply)]
            records[name] = (w, r)
            reg = Signal.like(r.data, name=f"{name}_q")
            with m.If(w.en):
                m.d.sync += reg.eq(w.data)
            cached[name] = (reg, r.data)
        for name in self._records:
            w, _ = records[name]
            port = getattr(self, name)
            m.d.comb += [w.en.eq(port.en), w.data.eq(port.data), port.q.eq(cached[name][0])]
        return records, cached

    def _read_table(self, m, index):
        """A promotion table read at ``index`` for ``side`` (hdl.chip.modes)."""
        table = PromotionTable(self._promotions, self._promo_bits)
        m.submodules[f"promotions{len(self._tables)}"] = table
        self._tables.append(table)
        m.d.comb += [table.side.eq(self.side), table.index.eq(index)]
        return table

    def _more_after(self, m, index):
        """Whether the side's promotion set has a piece after ``index`` (``side`` is the ply's
        mover whenever an index is written or read back); side-free when both sides promote to
        as many pieces."""
        if self._by_table:
            return ~self._read_table(m, index).last
        counts = [len(self._promotions[WHITE]), len(self._promotions[BLACK])]
        if counts[WHITE] == counts[BLACK]:
            return index != counts[WHITE] - 1
        return Mux(self.side, index != counts[BLACK] - 1, index != counts[WHITE] - 1)

    def _piece(self, m, promo):
        """The piece the ply's promotion index names, for its side (constants, or a table)."""
        if self._by_table:
            return self._read_table(m, promo).piece
        promotions = self._promotions
        piece = Signal(PIECE)
        differ = promotions[WHITE] != promotions[BLACK]
        with m.Switch(Cat(promo, self.side) if differ else promo):
            for colour in ((WHITE, BLACK) if differ else (0,)):
                for i, p in enumerate(promotions[colour]):
                    with m.Case(i | colour << self._promo_bits):
                        m.d.comb += piece.eq(p)
        return piece
