"""The search thread's repetition test: a table of position hashes and a scan that answers "does
the current position repeat an earlier one?" by engine.search.leaf_search.repeats' rule.

Entry i of the table holds the hash (low HASH_BITS) of the position i plies after the oldest one
kept. The host loads the job's history (up to REPETITION_PLIES hashes, oldest first) into
entries 0 .. H - 1 while the thread is idle; the thread writes the hash of each node it enters at
H + ply. A scan for the position at index ``top`` (the number of earlier positions kept), with
``count`` = min(fifty, REPETITION_PLIES) plies since the last irreversible move, compares the
entries

    top - 2, top - 4, ... down to max(top - count, 0)

(only positions with the same side to move can repeat) with the position's hash, one a clock,
newest first, and stops at the first equal one. ``repeats``' loop is the same:
``for i in range(n - 2, stop - 1, -2)`` with n = top, stop = max(n - count, 0).

Timing: the scan reads its first entry the clock after ``start`` and compares each entry two
clocks after its read (the block RAM's data is registered once more before the wide compare:
the read and the compare in one clock were the thread's critical path); ``done`` pulses
``reads + 3`` clocks after the start clock (clock S + reads + 3 for a start in clock S),
``reads`` being the entries compared (0 when count < 2 or top < 2: then done comes in clock
S + 3). ``busy`` is high from the clock after the start up to, not
including, done's clock. ``repeated`` and ``reads`` hold from done until the next start.

Writes: one a clock, at any time. A scan sees every write made up to and including its start
clock (its first read comes a clock later), and, while busy, the writes to entries it has yet to
read. A read in the clock of a write to its entry returns anything (the memory's
``no_rw_check``); the thread writes, while a scan runs, only the entry of the node being
entered, ``top``, which the scan never reads. A start while busy abandons the scan under way and
begins the new one.
"""

from amaranth import Module, Mux, Signal, signed
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.search.leaf_search import HASH_BITS, PLY_RECORDS, REPETITION_PLIES

ENTRIES = 128  #: the table's hashes: a job's history and a node at each of its plies, with room
INDEX_BITS = 7
COUNT_BITS = 6  #: the plies since the last irreversible move, capped at REPETITION_PLIES
READ_BITS = 5   #: the most entries one scan compares: (2 ** COUNT_BITS - 1) // 2

assert ENTRIES == 1 << INDEX_BITS
assert REPETITION_PLIES + PLY_RECORDS + 1 <= ENTRIES  # the history, the job's root and plies
assert REPETITION_PLIES < 1 << COUNT_BITS

#: a write of one entry
Put = data.StructLayout({"en": 1, "index": INDEX_BITS, "hash": HASH_BITS})


def scan_clocks(reads: int) -> int:
    """Clocks from a scan's start to its ``done`` (the start's clock not counted)."""
    return reads + 3


#: a scan, as its starter sees it: ``start`` (a one-clock pulse) with ``top``, ``count`` and
#: ``hash``; ``busy``, ``done``, ``repeated`` and ``reads`` back (RepetitionTable's ports)
Scan = wiring.Signature({
    "start": Out(1), "top": Out(INDEX_BITS), "count": Out(COUNT_BITS), "hash": Out(HASH_BITS),
    "busy": In(1), "done": In(1), "repeated": In(1), "reads": In(READ_BITS),
})

#: the whole table as its user sees it: the writes and the scan
Table = wiring.Signature({"put": Out(Put), "scan": Out(Scan)})


class RepetitionTable(wiring.Component):
    """The hashes of the earlier positions, and the scan for a repetition of the current one.

    Ports
    -----
    put : In(Put)
        One entry written a clock (``en``, ``index``, ``hash``).
    scan : In(Scan)
        start : a one-clock pulse: scan for ``hash`` as the position at ``top``, ``count``
            plies back.
        top : the index the current position would have: the number of earlier positions
            kept.
        count : min(fifty, REPETITION_PLIES): how far back a repetition may lie.
        hash : the current position's hash. ``top``, ``count`` and ``hash`` are taken with
            ``start``.
        busy : (out) a scan under way (from the clock after start, not in done's clock).
        done : (out) a one-clock pulse: the answer is ready, ``scan_clocks(reads)`` clocks
            after the start.
        repeated : (out) an entry compared equal (held from done to the next start).
        reads : (out) the entries compared, the hit included (held from done to the next
            start): leaf_search.repeats' second value.

    The signature is ``Table``'s, flipped.
    """

    def __init__(self):
        super().__init__(Table.flip())

    def elaborate(self, platform):
        m = Module()
        scan = self.scan
        # The scan reads below ``top`` and the thread writes, while it runs, at ``top``: a read
        # never needs a write of its clock, so ``no_rw_check`` lets it return anything then. Yosys
        # honours it where it merges the register behind a combinational read port itself (as in
        # hdl/chip/move_stack.py); else it builds read-before-write, which the ECP5's block RAM
        # lacks across its ports, in logic (a register per bit and a bypass mux).
        m.submodules.table = table = Memory(shape=HASH_BITS, depth=ENTRIES, init=[],
                                            attrs={"no_rw_check": 1})
        write, read = table.write_port(), table.read_port(domain="comb")
        entry = Signal(HASH_BITS)  # the entry read, a clock after its address (block RAM)
        entry2 = Signal(HASH_BITS)  # ... and a clock later, what is compared
        m.d.sync += [entry.eq(read.data), entry2.eq(entry)]
        m.d.comb += [write.en.eq(self.put.en), write.addr.eq(self.put.index),
                     write.data.eq(self.put.hash)]

        key = Signal(HASH_BITS)     # the scanned position's hash
        index = Signal(signed(INDEX_BITS + 1))  # the entry read next (below 0 when none is left)
        stop = Signal(INDEX_BITS)   # the oldest entry the scan may compare
        issuing = Signal()          # reading entries
        compare = Signal()          # ``entry`` holds an entry to compare ...
        last = Signal()             # ... the scan's last
        compare2 = Signal()         # the same for ``entry2``
        last2 = Signal()
        empty = Signal()            # a scan with nothing to compare, answering in two clocks
        empty2 = Signal()
        m.d.comb += read.addr.eq(index[:INDEX_BITS])
        m.d.sync += scan.done.eq(0)

        # reading: entry index, then index - 2 while it is not below stop
        final = index - 2 < stop
        with m.If(issuing):
            m.d.sync += [index.eq(index - 2), compare.eq(1), last.eq(final), issuing.eq(~final)]
        with m.Else():
            m.d.sync += compare.eq(0)
        m.d.sync += [compare2.eq(compare), last2.eq(last), empty2.eq(empty), empty.eq(0)]

        def finish(hit):
            m.d.sync += [scan.done.eq(1), scan.busy.eq(0), scan.repeated.eq(hit),
                         issuing.eq(0), compare.eq(0), compare2.eq(0), empty2.eq(0)]

        # comparing: the first hit, or the last entry, ends the scan (the reads already issued
        # after it are dropped)
        hit = entry2 == key
        with m.If(compare2):
            m.d.sync += scan.reads.eq(scan.reads + 1)
            with m.If(hit | last2):
                finish(hit)
        with m.If(empty2):
            finish(0)

        # a start (last, so it wins over a scan under way): the loop's bounds
        first = Signal(signed(INDEX_BITS + 1))
        oldest = Signal(INDEX_BITS)
        m.d.comb += [first.eq(scan.top - 2),
                     oldest.eq(Mux(scan.top > scan.count, scan.top - scan.count, 0))]
        with m.If(scan.start):
            m.d.sync += [key.eq(scan.hash), index.eq(first), stop.eq(oldest),
                         issuing.eq(first >= oldest), empty.eq(first < oldest),
                         compare.eq(0), compare2.eq(0), empty2.eq(0),
                         scan.busy.eq(1), scan.done.eq(0),
                         scan.repeated.eq(0), scan.reads.eq(0)]
        return m
