"""Search threads behind the board's command protocol (``hdl.link.protocol``: the search board):
SEARCH, RESULT and ABORT on the command shell (``hdl.link.command_shell``).

::

    rx -> HostLink -- frame --> CommandShell --(loads, jobs, ABORT)--> SearchThreads (N)
                                 |  + SEARCH, RESULT, ABORT
    tx <- HostLink <- ReplyShifter <- PING, RESULT <------- score, best move, nodes, clocks

The board answers PING (0 engines, its threads), LOAD and UPDATE (the position, into the front
end's copy of it and the idle threads' boards), SEARCH (a job on the loaded position: the
window, remaining depth, ply, check extensions, halfmove counter and the hashes of the earlier
positions; answered at once, the job runs on), RESULT (a job's state and, once done, its score,
best move, nodes and clocks; while it runs, nodes and clocks so far) and ABORT (running jobs
stop; the idle threads' boards are reloaded from the copy). Anything else is UNSUPPORTED. The
header's engine byte addresses a thread (below PING's thread count) or ``ENGINE_ALL``: SEARCH to
a thread runs the job there (BUSY while it runs one), to ``ENGINE_ALL`` on the lowest free
thread (BUSY while every thread runs); RESULT to a thread gives its job's, to ``ENGINE_ALL`` the
last job started's; ABORT to a thread stops its job, to ``ENGINE_ALL`` every job. LOAD and
UPDATE are BUSY while every thread runs (with one thread: while its job runs). Every job begins
with the whole position written into its thread from the copy, a1 first, as the thread's load
contract asks (its evaluation's sums are rebuilt from such a load): 64 clocks, what the compiled
model counts for a job's load; the other threads search on meanwhile. SEARCH's hashes are kept
as they arrive (a 32 x 36 memory beside the copy) and written into the thread's history in the
same clocks, a hash a clock beside the squares, so they cost the hand-over no clock (the
compiled thread's model writes them after its load: its load clocks are a clock a hash more).
"""

from amaranth import Cat, Const, Mux, Signal
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.variants import CHESS
from posdata.engine.search.leaf_search import HASH_BITS

from ..common.contract import SEARCH_ARGUMENTS, SQUARES
from ..search.records import FIFTY_BITS, job_refused
from ..search.search_thread import SearchThread
from .command_shell import CommandShell
from .link import HostLink
from .protocol import (
    ENGINE_ALL,
    HASH_BYTES,
    MAX_SEARCH_HISTORY,
    PING_BYTES,
    RESULT_BYTES,
    SEARCH_BOARD,
    SEARCH_BYTES,
    SEARCH_RX_BYTES,
    Cmd,
    Err,
    SelfTest,
    ping_payload,
    variant_number,
)
from .search_threads import SearchThreads

MAX_FIFTY = (1 << FIFTY_BITS) - 1      #: the thread's halfmove counter, which saturates there
TOP_BITS = HASH_BITS - 8 * (HASH_BYTES - 1)  #: a hash's bits in its last byte (the rest zero)
assert SEARCH_BYTES <= 8 and 0 < TOP_BITS <= 8


class SearchFrontEnd(CommandShell):
    """Parameters
    ----------
    divisor : int
        Clock cycles per UART bit, ``round(clock_hz / baud)``; at least 4.
    frame_timeout : int or None
        Clocks without a byte after which a half-received command is dropped.
    threads : int
        Search threads (``SearchThreads``), 1 .. ``ENGINE_ALL - 1``.
    make_thread : callable
        Makes one thread (default ``SearchThread``); tests may pass a model with its ports.

    Ports
    -----
    rx : In(1); tx : Out(1)
        Serial data from and to the host (idle high).
    busy : Out(1)
        A job runs, a clock later (for an LED).
    """

    rx: In(1, init=1)
    tx: Out(1, init=1)
    busy: Out(1)

    def __init__(self, divisor: int, *, frame_timeout: int | None = None, threads: int = 1,
                 make_thread=SearchThread):
        if not 1 <= threads < ENGINE_ALL:
            raise ValueError(f"a search board holds 1 to {ENGINE_ALL - 1} threads, not {threads}")
        # the header's engine byte addresses a thread: the judge's BAD_ENGINE above the count
        # the receiver holds a batch: the host writes its jobs' commands at once
        link = HostLink(divisor, frame_timeout, engines=threads, supported=SEARCH_BOARD,
                        rx_bytes=SEARCH_RX_BYTES)
        self.threads = SearchThreads(threads, make_thread)
        super().__init__(link, shift_bytes=RESULT_BYTES, variant=CHESS)

    def _build(self, m, s):
        link, writer = s.link, s.writer
        hdr = s.header
        m.submodules.threads = threads = self.threads
        # the threads' boards: the writer's squares (LOAD, UPDATE, a job's load from the copy);
        # a thread that runs a job ignores them
        m.d.comb += [threads.load.en.eq(writer.wr_en), threads.load.sq.eq(writer.wr_sq),
                     threads.load.color.eq(writer.wr_code[:2]),
                     threads.load.piece.eq(writer.wr_code[2:])]

        # --- the job ---------------------------------------------------------------------
        self.args = Signal(8 * SEARCH_BYTES)  # SEARCH's job bytes, as they pass the cursor
        root = writer.root
        m.d.comb += [threads.job.side.eq(root.side), threads.job.castle.eq(root.castle),
                     threads.job.ep_valid.eq(root.ep_valid), threads.job.ep_sq.eq(root.ep_sq),
                     threads.job.alpha.eq(self._arg("alpha")),
                     threads.job.beta.eq(self._arg("beta")),
                     threads.job.depth.eq(self._arg("depth")),
                     threads.job.ply.eq(self._arg("ply")), threads.job.ext.eq(self._arg("ext")),
                     threads.past.fifty.eq(self._arg("fifty"))]
        # SEARCH's hashes, kept whole as they pass the cursor: read back a hash a clock into the
        # thread's history beside the squares (the link's buffer gives a byte a clock)
        m.submodules.history = history = Memory(shape=HASH_BITS, depth=MAX_SEARCH_HISTORY,
                                                init=[])
        self.hist_w, self.hist_r = history.write_port(), history.read_port()
        self.hashes = Signal(range(MAX_SEARCH_HISTORY + 1))  # the hashes SEARCH carried
        m.d.comb += [self.hist_r.addr.eq(s.cursor.addr), threads.past.length.eq(self.hashes)]
        running = threads.running
        count = threads.count
        # the thread a command addresses (ENGINE_ALL aside: the judge refuses the rest)
        self._addressed = addressed = hdr.engine[:max(1, (count - 1).bit_length())]
        self._to_all = to_all = hdr.engine == ENGINE_ALL
        self.last = last = Signal(range(count))  # the last job started: RESULT to ENGINE_ALL
        m.d.comb += [
            # BUSY: SEARCH to a thread while it runs; SEARCH to ENGINE_ALL, LOAD and UPDATE
            # while every thread runs
            link.counting.eq(Mux((hdr.cmd == Cmd.SEARCH) & ~to_all,
                                 (running >> addressed)[0], running.all())),
            threads.select.eq(Mux(to_all, last, addressed)),
        ]

        # SEARCH's thread, fixed as the command is judged (a thread may finish meanwhile)
        self._target = target = Signal(range(count))
        m.d.comb += threads.target.eq(target)
        self._lowest_free = lowest_free = Signal(range(count))
        for i in reversed(range(count)):
            with m.If(~threads.running[i]):
                m.d.comb += lowest_free.eq(i)
        self._aborting = Signal(count)  # the threads an ABORT stopped: Drain waits them out
        self.part = Signal(range(HASH_BYTES))  # SEARCH's hash bytes: the next one's place
        self._bad_hash = Signal()  # a hash with bits above HASH_BITS set

    def _busy(self, s):
        return self.threads.running.any()


    def _arg(self, name):
        """SEARCH's job field ``name`` (the contract's SEARCH_ARGUMENTS), little-endian."""
        offset, size, signed = SEARCH_ARGUMENTS[name]
        value = self.args[8 * offset:8 * (offset + size)]
        return value.as_signed() if signed else value

    def _search_byte(self, m, current, bad_hash):
        """SEARCH's byte ``current.index`` passes: a job byte into ``args``; a hash byte into
        the hash it builds, which its last byte writes into the history memory."""
        low = Signal(8 * (HASH_BYTES - 1))  # the hash's bytes before its last
        with m.If(current.index < SEARCH_BYTES):
            m.d.sync += self.args.word_select(current.index[:3], 8).eq(current.byte)
        with m.Elif(self.part != HASH_BYTES - 1):
            m.d.sync += [low.word_select(self.part, 8).eq(current.byte),
                         self.part.eq(self.part + 1)]
        with m.Else():
            m.d.comb += [self.hist_w.en.eq(1), self.hist_w.addr.eq(self.hashes),
                         self.hist_w.data.eq(Cat(low, current.byte))]
            m.d.sync += [self.part.eq(0), self.hashes.eq(self.hashes + 1)]
            with m.If(current.byte[TOP_BITS:].any()):
                m.d.sync += bad_hash.eq(1)

    def _judged(self, m, s):
        m.d.sync += [self._target.eq(Mux(self._to_all, self._lowest_free, self._addressed)),
                     self.hashes.eq(0), self.part.eq(0), self._bad_hash.eq(0)]

    def _dispatch(self, m, s):
        threads, shifter = self.threads, s.shifter
        ping = ping_payload(0, threads.count, SelfTest.NONE, variant_number(CHESS))
        stop = (Mux(self._to_all, (1 << threads.count) - 1, 1 << self._addressed)[:threads.count]
                & threads.running)
        with m.Switch(s.header.cmd):
            with m.Case(Cmd.PING):
                m.d.comb += [shifter.load.eq(1), shifter.load_bytes.eq(PING_BYTES),
                             shifter.load_data.eq(Const(int.from_bytes(ping, "little"),
                                                        8 * PING_BYTES))]
                s.reply(Err.OK, PING_BYTES)
            with m.Case(Cmd.RESULT):
                m.d.comb += [shifter.load.eq(1), shifter.load_bytes.eq(RESULT_BYTES),
                             shifter.load_data.eq(threads.result)]
                s.reply(Err.OK, RESULT_BYTES)
            with m.Case(Cmd.ABORT):
                with m.If(stop.any()):
                    m.d.comb += threads.abort.eq(stop)
                    m.d.sync += self._aborting.eq(stop)
                    m.next = "Drain"
                with m.Else():
                    s.reply(Err.OK)
            with m.Case(Cmd.LOAD, Cmd.UPDATE, Cmd.SEARCH):
                m.next = "Check"

    def _checking(self, m, s):
        """SEARCH's bytes are kept here (its job and hashes); ArgumentCheck judges LOAD's and
        UPDATE's."""
        is_search = s.header.cmd == Cmd.SEARCH
        with m.If(s.cursor.started & is_search):
            self._search_byte(m, s.cursor.current, self._bad_hash)
        return ~is_search

    def _checked(self, m, s):
        fifty = self._arg("fifty")
        bad_job = (job_refused(*(self._arg(name) for name in
                                 ("alpha", "beta", "depth", "ply", "ext")))
                   | (fifty > MAX_FIFTY) | (self.hashes > fifty) | self._bad_hash)
        with m.If(s.header.cmd == Cmd.SEARCH):
            with m.If(bad_job):
                s.reply(Err.BAD_ARGUMENT)
            with m.Else():
                m.next = "Job-Load"
        with m.Elif(s.check.bad):
            s.reply(Err.BAD_ARGUMENT)
        with m.Else():
            m.next = "Write"

    def _states(self, m, s):
        threads, cursor = self.threads, s.cursor
        # --- SEARCH: the whole board from the copy, a1 first (the thread rebuilds its
        # evaluation's sums from such a load: UPDATE's writes alone would leave them apart),
        # then the job once the writes are in the planes ------------------------------------
        settle = Signal(2)
        with m.State("Job-Load"):
            s.copy_square()
            # the hashes beside the squares: hash addr - 1, read a clock ago
            m.d.comb += [threads.history.en.eq((cursor.addr != 0)
                                               & (cursor.addr <= self.hashes)),
                         threads.history.index.eq(cursor.addr - 1),
                         threads.history.hash.eq(self.hist_r.data)]
            with m.If(cursor.addr == SQUARES):
                m.d.comb += cursor.restart.eq(1)
                m.d.sync += settle.eq(3)
                m.next = "Job-Settle"
        with m.State("Job-Settle"):
            m.d.sync += settle.eq(settle - 1)
            with m.If(settle == 1):
                m.next = "Job-Start"
        with m.State("Job-Start"):
            m.d.comb += threads.start.eq(1)
            m.d.sync += self.last.eq(self._target)
            s.reply(Err.OK)

        # --- ABORT: the threads stopped back to idle, then the idle threads' boards from the
        # copy ------------------------------------------------------------------------------
        with m.State("Drain"):
            with m.If(~(self._aborting & threads.busy).any()):
                m.next = "Reload"
        with m.State("Reload"):
            s.copy_square()
            with m.If(cursor.addr == SQUARES):
                s.reply(Err.OK)
