"""A plain-Python, cycle-level model of the move generator (hdl.movegen and the modules it is
built from): every register is a Python variable updated once per clock, every piece of
combinational logic a few lines of straight code in the same order as the gateware computes it.
``predict(board)`` runs one generation with ``moves.ready`` held high and returns the moves in
emission order, the clock count the gateware reports in ``cycles``, and an account per piece.

It reads the same ROM image and buffer sizes as the gateware (hdl.rom_image and hdl.params,
plain Python without Amaranth) and uses nothing of engine's generator, so it is a second
description of the hardware; the tests hold the gateware to its cycle count and engine.movegen
to its moves.

Clocks are numbered from the one in which ``start`` is taken (clock 0); ``cycles`` counts the
busy clocks 1 .. N, N being the clock in which the merger is in "Drain".

Start-up. The piece scanner's candidate is a register: clock 0 loads the mask of the side's
pieces, clock 1 finds the lowest, clock 2 sends it to ROM port B, and its start entry lands in
the prefetch queue at the end of clock 3. The two walk contexts take turns in the logic stage,
context 0 in odd clocks, context 1 in even ones, so context 1 takes the first piece in clock 4,
presents its first square to ROM port A in the same clock and makes its first step in clock 6.
The second piece (scanned in clock 3, read in 4, queued in 5) goes to context 0 in clock 7,
whose first step is in clock 9, or back to context 1 if its first piece ended in one step. The
walk always begins in clock 6, and clock 7 is always idle.

Steady state. A context steps every other clock (address, ROM, registered word, logic), so with
both contexts walking the ROM delivers one table entry per clock. Changing pieces costs nothing:
the step that ends a piece takes the head of the queue and sends that piece's first square to
the ROM at once, so a context walks its pieces back to back at two clocks per entry, and pieces
go to whichever context comes free first. The scanner delivers a piece every two clocks and the
queue holds two, which keeps up with everything but runs of one- and two-entry pieces.

The tail. Once the queue and the scanner are empty, a context that finishes stays idle, and
the other walks what it still has at half speed: its logic stage comes every second clock and
the clocks between are empty. A side whose last piece is a long slider pays for it in full:
``7k/8/8/8/8/8/8/KQ6 w`` takes 52 clocks for 24 entries, the queen's 21 at two clocks each.

Merger and Drain. A step that emits a move or ends its piece writes one entry into its
context's FIFO (a step that does neither writes nothing); the merger sees it the next clock. It
reads one entry per clock from the FIFO of the context that walks the oldest unfinished piece
(the order FIFO says which), and the word leaves through the output register a clock later:
with nothing queued, a move found in clock t is taken from the stream in clock t + 2. A
promoting entry holds the merger for four clocks (one word per promotion piece), an end-only
entry for one clock without a word. The merger falls behind when the two contexts walk pieces
side by side (the later piece's entries wait until the earlier piece's end has been read) or
behind promotions, and catches up on steps that write nothing. When no piece is left, both
contexts are idle and all FIFOs are empty, it adds the castling moves, one clock each (king
side first), and then spends one clock in Drain while the last word leaves. Without a backlog
that is three clocks after the last step plus the castling moves: a lone king on e1 steps in
clocks 6, 8, 10, 12 and 14, its moves leave in 8 .. 16, and ``cycles`` is 17.

Full FIFOs. A context can run up to fourteen entries ahead of the merger on later pieces while
the other walks a long piece that comes first (or while the merger expands promotions). The
``room`` flags are registered (level < 14) and sampled while a context waits for the ROM, so
they may be a clock stale; the margin of two covers the one write the context can make in
between, and no entry is ever dropped. A step without room does not happen: the context
presents the same entry again and loses two clocks (``Prediction.stalls`` counts them; they are
part of the piece's ``cycles``). This does happen with ``ready`` held high, in about one random
playout position in a hundred, e.g. ``4r1R1/5k1r/3P4/8/r7/2p5/5Kp1/3Q4 w``: context 1 walks the
queen on d1 (19 entries) while context 0 walks the king, the pawn and the rook, whose FIFO
fills before the queen is done (4 stalls, 64 clocks).

Accounts. ``walk_entries`` counts the logic-stage clocks in which an active context stepped,
i.e. ROM port A entries consumed: every square a walk visits after its start entry (pushes and
capture squares for a pawn), replays not counted. ``start_entries`` is one ROM port B read per
piece. ``PieceAccount.cycles`` counts the clocks a context spent in the logic stage on the piece
(``entries`` plus its stalls), what ``posdata sim`` measures from the gateware's ``walking`` and
``walk_from`` outputs.
"""

from collections import deque
from dataclasses import dataclass, field
from typing import NamedTuple

from posdata.engine.defs import (CAPTURE, CASTLE, CASTLES, DOUBLE, EMPTY, EP, NO_SQUARE, PAWN,
                                 PAWN_MOVE, PIECE_LETTERS, PROMO_SHIFT, PROMOTION, PROMOTION_ORDER,
                                 SQUARE_NAMES, ptype)

from posdata.hdl.params import CONTEXTS, FIFO_DEPTH, ORDER_DEPTH, QUEUE_DEPTH, ROOM_MARGIN
from posdata.hdl.rom_image import (ROM_DEPTH, end_image, rom_address, rom_image,  # noqa: F401
                           table_index)

_ROM: tuple[list[int], list[int]] | None = None


def rom_images() -> tuple[list[int], list[int]]:
    """``(words, ends)`` per ROM address, the gateware's ROM contents (hdl.rom_image)."""
    global _ROM
    if _ROM is None:
        words = rom_image()
        _ROM = words, end_image(words)
    return _ROM


# --- what the registers hold -------------------------------------------------------------------

class PieceRecord(NamedTuple):
    """A piece waiting in the prefetch queue (hdl.prefetch.PieceRecord)."""
    table: int    #: ROM table (table_index of the ptype)
    pawn: bool
    frm: int
    first: int    #: nextpos[from][from]: the first square
    d1: int       #: nextdir[from][from]: a pawn's first capture square


class Context(NamedTuple):
    """One walk in progress (hdl.walker.Context)."""
    active: bool
    id: int       #: which merger FIFO its entries go to
    table: int = 0
    frm: int = 0
    d1: int = 0
    d1_end: bool = False
    pawn: bool = False
    capt: bool = False     #: a pawn in its capture thread
    push2: bool = False    #: a pawn at its double-step square
    u: int = 0             #: the square whose entry this context reads


class Pre(NamedTuple):
    """What the walker works out for a context while it waits for the ROM
    (hdl.walker.Precomputed), used in its logic stage the next clock."""
    emit: bool = False
    promote: bool = False
    word: int = 0
    always_end: bool = False
    end_if_np: bool = False
    end_if_nd: bool = False
    use_np: bool = False
    use_nd: bool = False
    np_to_d1: bool = False
    to_capture: bool = False
    step: bool = False


class Entry(NamedTuple):
    """A walk step's FIFO entry (hdl.walker.Entry)."""
    word: int
    move: bool
    promote: bool
    end: bool


# --- results -------------------------------------------------------------------------------------

@dataclass
class PieceAccount:
    square: int
    piece: int
    color: int
    entries: int = 0     #: walk steps: logic-stage clocks that advanced or ended this piece
    moves: int = 0       #: words emitted (four per promoting entry)
    cycles: int = 0      #: clocks a context spent in the logic stage on it (stalls included)

    @property
    def name(self) -> str:
        letter = PIECE_LETTERS[self.piece]
        return (letter.upper() if self.color == 0 else letter) + SQUARE_NAMES[self.square]


@dataclass
class Prediction:
    moves: list[int]           #: engine move words in emission order
    cycles: int                #: what the gateware reports in ``cycles`` (ready held high)
    walk_entries: int          #: ROM A entries consumed: walk steps of all pieces
    start_entries: int         #: ROM B reads: one start entry per piece
    castles: int
    pieces: list[PieceAccount] = field(default_factory=list)
    stalls: int = 0            #: logic-stage clocks of an active context that could not step

    @property
    def table_steps(self) -> int:
        """ROM entries visited, counting each piece's start entry."""
        return self.walk_entries + self.start_entries


# --- the generation, clock by clock --------------------------------------------------------------

# the merger's states (hdl.merger; "Idle" is left in clock 0)
PIECES = "Pieces"
CASTLE_KINGSIDE = "Castle-Kingside"
CASTLE_QUEENSIDE = "Castle-Queenside"
DRAIN = "Drain"


def predict(board, trace: list | None = None, max_cycles: int = 20_000) -> Prediction:
    """One generation of ``board``'s moves with ``moves.ready`` held high. With a ``trace``
    list, append per busy clock ``(square of the piece in the walker's logic stage or None,
    move word taken from the stream or None)``, as ``PysimGenerator(trace=True)`` records it."""
    words, ends = rom_images()
    color, piece = board.color, board.piece
    side, castle = board.side, board.castle
    xside = side ^ 1
    ep_valid, ep_sq = board.ep != NO_SQUARE, max(board.ep, 0)
    last_rank = 0 if side else 7
    accounts = {sq: PieceAccount(sq, piece[sq], side) for sq in range(64) if color[sq] == side}
    castle_ok = [bool(castle & c.right) and all(color[s] == EMPTY for s in c.empty)
                 for c in CASTLES[side]]
    moves: list[int] = []
    stalls = 0

    # Cycle 0 is the clock in which ``start`` is taken: it loads the piece mask, empties the
    # prefetch queue, parks both walk contexts and sends the merger to "Pieces". These are the
    # registers as they stand in cycle 1.
    pending = sum(1 << sq for sq in accounts)            # scanner: pieces not yet taken
    cand_valid, cand_sq = False, 0                         # scanner: the registered candidate
    queue: deque[PieceRecord] = deque()                    # prefetch ring (count = len)
    inflight, inflight_rec, rom_b = False, None, 0         # a start entry in ROM port B
    ring_l, ring_r = Context(False, 0), Context(False, 1)  # logic stage, in the ROM
    rom_a = rom_a_ends = 0                                 # ROM A output: ring_r's entry
    data_q = ends_q = 0                                    # ... registered: ring_l's entry
    pre = Pre()                                            # ring_l's precomputed step
    fifos = [deque() for _ in range(CONTEXTS)]             # merger: per-context FIFOs
    room = [True] * CONTEXTS                               # registered level < 14
    order: deque[int] = deque()                            # merger: context of each piece
    state, promo_i = PIECES, 0
    out_valid, out_word = False, 0

    for cycle in range(1, max_cycles):
        # --- prefetcher (hdl.prefetch): one piece per two clocks into a 2-deep queue ----------
        issue = cand_valid and len(queue) + inflight < QUEUE_DEPTH
        head_ready = bool(queue)
        left = head_ready or inflight or cand_valid or pending != 0

        # --- walker logic stage (hdl.walker): ring_l with its ROM word and ``pre`` -----------
        c, p = ring_l, pre
        nextpos, nextdir = data_q & 63, data_q >> 6
        np_end, nd_end = bool(ends_q & 1), bool(ends_q & 2)
        piece_end = p.always_end or (p.end_if_np and np_end) or (p.end_if_nd and nd_end)
        take_np = p.use_np and not (p.np_to_d1 and np_end)
        next_u = nextpos if take_np else nextdir if p.use_nd else c.d1
        to_capture = p.to_capture or (p.np_to_d1 and np_end)
        step = p.step
        finishing = step or not c.active
        pop = False
        if step and not piece_end:
            nxt = c._replace(u=next_u, capt=c.capt or to_capture,
                             push2=c.pawn and not c.capt and not to_capture)
        elif finishing and head_ready:
            h = queue[0]
            nxt = Context(True, c.id, h.table, h.frm, h.d1, h.d1 == h.frm, h.pawn, False, False,
                          h.first)
            pop = True
        elif step:
            nxt = c._replace(active=False)
        else:
            nxt = c
        write = step and (p.emit or piece_end)
        entry = Entry(p.word, p.emit, p.promote, piece_end)
        if c.active:
            acct = accounts[c.frm]
            acct.cycles += 1
            if step:
                acct.entries += 1
                if p.emit:
                    acct.moves += 4 if p.promote else 1
            else:
                stalls += 1

        # --- walker, context in the ROM: everything that needs no ROM data --------------------
        r = ring_r
        here = color[r.u]
        r_empty, r_enemy, r_own = here == EMPTY, here == xside, here == side
        marker = r.u == r.frm
        r_last_rank = r.u >> 3 == last_rank
        r_ep = ep_valid and r.u == ep_sq
        base = r.frm | r.u << 6
        if not r.pawn:
            emit, promote = not marker and not r_own, False
            word = base | (CAPTURE if r_enemy else 0)
        elif not r.capt:
            emit, promote = not marker and r_empty, r_last_rank
            word = base | PAWN_MOVE | (DOUBLE if r.push2 else 0)
        else:
            emit, promote = not marker and (r_enemy or (r_empty and r_ep)), r_last_rank
            word = base | PAWN_MOVE | CAPTURE | (0 if r_enemy else EP)
        nonpawn = not r.pawn and not marker
        push = r.pawn and not r.capt and not marker
        capt = r.pawn and r.capt and not marker
        pre_next = Pre(
            emit=emit, promote=promote, word=word,
            always_end=(push and not r_empty and r.d1_end)
            or (marker and (not r.pawn or r.capt or r.d1_end)),
            end_if_np=(nonpawn and r_empty) or (push and r_empty and r.d1_end),
            end_if_nd=(nonpawn and not r_empty) or capt,
            use_np=(nonpawn or push) and r_empty,
            use_nd=(nonpawn and not r_empty) or capt,
            np_to_d1=push and r_empty,
            to_capture=(push and not r_empty) or (marker and r.pawn and not r.capt),
            step=r.active and room[r.id])

        # --- merger (hdl.merger) ----------------------------------------------------------------
        walk_done = not left and not ring_l.active and not ring_r.active
        emit_out, word_out, finished = False, 0, False
        read_fifo = read_order = False
        next_state, next_promo_i = state, promo_i
        if state == PIECES:
            cur = order[0] if order else 0
            if order and fifos[cur]:
                e = fifos[cur][0]
                emit_out = e.move
                word_out = e.word
                if e.promote:
                    word_out |= PROMOTION | PROMOTION_ORDER[promo_i] << PROMO_SHIFT
                if e.move and e.promote:
                    next_promo_i = (promo_i + 1) & 3
                if not e.move or not e.promote or promo_i == 3:
                    read_fifo = True
                    read_order = e.end
            elif walk_done and not order and not fifos[0] and not fifos[1]:
                next_state = (CASTLE_KINGSIDE if castle_ok[0] else
                              CASTLE_QUEENSIDE if castle_ok[1] else DRAIN)
        elif state == CASTLE_KINGSIDE:
            emit_out, word_out = True, _castle_word(side, 0)
            next_state = CASTLE_QUEENSIDE if castle_ok[1] else DRAIN
        elif state == CASTLE_QUEENSIDE:
            emit_out, word_out = True, _castle_word(side, 1)
            next_state = DRAIN
        else:  # DRAIN: the last word leaves the output register in this clock
            finished = True

        # The stream: ready is high, so the output register's word is taken in every clock.
        if out_valid:
            moves.append(out_word)
        if trace is not None:
            trace.append((c.frm if c.active else None, out_word if out_valid else None))
        if finished:  # hdl.movegen: busy falls, ``cycles`` has counted this clock
            return Prediction(moves, cycle, sum(a.entries for a in accounts.values()),
                              len(accounts), sum(castle_ok), list(accounts.values()), stalls)

        # --- the clock edge ----------------------------------------------------------------------
        # merger
        # (a SyncFIFO ignores a write while it is full, even with a read in the same clock:
        # the room margin keeps that from happening to the context FIFOs, and a side has at
        # most 16 pieces for the order FIFO; see the docstring)
        room_next = [len(f) < FIFO_DEPTH - ROOM_MARGIN for f in fifos]
        write_ok = write and len(fifos[c.id]) < FIFO_DEPTH
        order_ok = pop and len(order) < ORDER_DEPTH
        if read_fifo:
            fifos[cur].popleft()
        if write_ok:
            fifos[c.id].append(entry)
        if read_order:
            order.popleft()
        if order_ok:
            order.append(c.id)
        room = room_next
        out_valid, out_word = emit_out, word_out
        state, promo_i = next_state, next_promo_i
        # walker: the ring turns, ROM A answers for the context that just went in
        ring_l, ring_r = ring_r, nxt
        data_q, ends_q = rom_a, rom_a_ends
        address = nxt.table << 12 | nxt.frm << 6 | nxt.u  # rom_address with the table index
        rom_a, rom_a_ends = words[address], ends[address]
        pre = pre_next
        # prefetcher
        if pop:
            queue.popleft()
        if inflight:
            first, d1 = rom_b & 63, rom_b >> 6
            queue.append(inflight_rec._replace(first=first, d1=d1))
        inflight = issue
        if issue:
            table = table_index(ptype(side, piece[cand_sq]))
            inflight_rec = PieceRecord(table, piece[cand_sq] == PAWN, cand_sq, 0, 0)
            rom_b = words[table << 12 | cand_sq << 6 | cand_sq]
            pending &= ~(1 << cand_sq)
            cand_valid = False
        elif not cand_valid:
            cand_valid = pending != 0
            cand_sq = (pending & -pending).bit_length() - 1
    raise RuntimeError(f"the model did not finish within {max_cycles} cycles")


def _castle_word(side: int, i: int) -> int:
    c = CASTLES[side][i]
    return c.king_from | c.king_to << 6 | CASTLE
