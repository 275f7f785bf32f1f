"""The host side of the board's command protocol, version 4 (``hdl.link.protocol``).

``BoardClient(transport)`` drives the perft chip on a board (or a simulated one):

* ``generate(board)`` has the interface of the simulator drivers (``sim.drivers.interface``): it
loads the
  position (the whole board the first time, then only the squares that changed), lists the
  pseudo-legal moves in generation order and returns a ``sim.drivers.interface.Generation`` with the
  generator's cycle count; ``legal_moves(board)`` lists the legal ones the same way;
* ``perft(board, depth, bulk, split, progress)`` starts a count, follows it with STATUS and
  returns a ``sim.drivers.chip_cxxrtl.ChipCount`` (without per-thread phases);
* ``status()``, ``abort()``, ``ping()``, and ``command()`` for one raw exchange.

A transport carries the bytes: ``SerialTransport`` here (a real board, pyserial),
``sim.drivers.fpga_board_sim.SimulatedTransport`` (the front end in Amaranth's simulator, UART bits
and all) and ``sim.drivers.fpga_board_sim.CompiledBoard`` (its compiled model). A transport has
``name`` and ``limit`` (for messages), ``write(bytes)``, ``read(n)`` (fewer bytes once its time
limit expires), ``discard_input()`` (until the line is quiet), ``sleep(seconds)``,
``frame_timeout_s`` (the board's time-out for a half-sent command), ``poll_interval`` (seconds
between STATUS polls), ``close()``, and optionally ``just_reset`` (the board is fresh from power-up:
no resync needed).

Every read has a time limit. Errors are ``BoardError``\\ s with a one-line message: a reply that
did not come (``BoardTimeout``), a garbled one (``ProtocolError``), or the board's refusal
(``BoardRefused``, with its error code). After a timeout or a garbled reply the link is out of
step: the next command first resyncs (silence for longer than the board's frame time-out, the
line drained, PING) and reloads the whole position.

Importing this module does not import amaranth or pyserial.
"""

import time
from dataclasses import dataclass

from posdata.engine.rules.defs import MAX_MOVES, MOVE_BITS
from posdata.engine.search.leaf_search import LeafResult, check_job
from posdata.engine.search.searcher import SearchStopped
from posdata.hdl.common.contract import (
    MAX_DEPTH,
    default_split,
    split_in_range,
    square_code,
    square_codes,
)
from posdata.hdl.link.protocol import (
    DEFAULT_BAUD,
    ENGINE_ALL,
    FLAG_BEST,
    FLAG_BULK,
    FLAG_REFUSED,
    FLAG_SELF_TEST,
    FRAME_TIMEOUT_BYTES,
    LISTING_HEADER,
    MOVE_BYTES,
    PING_BYTES,
    PING_MAGIC,
    PROTOCOL_VERSION,
    REPLY_HEADER,
    RESULT_BYTES,
    SEARCH_RX_BYTES,
    STATUS_BYTES,
    UART_FRAME_BITS,
    Cmd,
    Err,
    SelfTest,
    State,
    command_frame,
    crc8,
    load_payload,
    perft_payload,
    search_payload,
    state_bytes,
    update_payload,
)

from .chip_cxxrtl import ChipCount
from .interface import Generation, ShadowBoard, position_inputs

MOVE_MASK = (1 << MOVE_BITS) - 1
#: more changed squares than this: LOAD the whole board (LOAD_BYTES) rather than UPDATE them
FULL_LOAD_ABOVE = 31

#: the longest reply payload each command can have
MAX_REPLY = {Cmd.PING: PING_BYTES, Cmd.STATUS: STATUS_BYTES, Cmd.RESULT: RESULT_BYTES,
             Cmd.GENERATE: LISTING_HEADER + MOVE_BYTES * MAX_MOVES,
             Cmd.LEGAL: LISTING_HEADER + MOVE_BYTES * MAX_MOVES}

#: what an error code means to the user
EXPLAIN = {
    Err.BAD_CRC: "the command arrived garbled",
    Err.UNKNOWN_COMMAND: "the board does not know the command",
    Err.BAD_ENGINE: "no such engine",
    Err.BAD_LENGTH: "the payload's length does not fit the command",
    Err.BUSY: "a count is running (the power-up self-test, or one started earlier): wait for "
              "it or abort it",
    Err.BAD_ARGUMENT: "an argument is out of range",
    Err.OVERFLOW: "a move stack overflowed, so there is no count",
    Err.UNSUPPORTED: "this board has no perft chip (the iCEBreaker's): it lists moves only",
}
#: refusals that mean the link garbled a command: resync before the next one
LINK_ERRORS = frozenset({Err.BAD_CRC, Err.UNKNOWN_COMMAND, Err.BAD_LENGTH})


def command_name(cmd: int) -> str:
    """A command byte for messages (tests send unknown ones too)."""
    return Cmd(cmd).name if cmd in set(Cmd) else f"command {cmd:#04x}"


class BoardError(Exception):
    """Talking to the board failed; the message is one line."""


class BoardTimeout(BoardError):
    """Something the board should have sent did not arrive in time."""


class ProtocolError(BoardError):
    """The board sent something the protocol does not allow (or the line garbled it)."""


class BoardRefused(BoardError):
    """The board answered a command with an error code (``code``, an ``Err``)."""

    def __init__(self, cmd: int, code: Err, where: str):
        self.cmd, self.code = cmd, code
        super().__init__(f"the board on {where} refused {command_name(cmd)}: {code.name} "
                         f"({EXPLAIN.get(code, 'an error')})")


class _NotRunning(Exception):
    """Inside ``BoardClient.perft``: ``error`` ended the count, or showed it is not this host's:
    nothing to abort."""

    def __init__(self, error: BoardError):
        super().__init__(str(error))
        self.error = error


@dataclass
class BoardInfo:
    """PING's reply."""
    version: int
    engines: int
    threads: int          #: per engine
    variant: int
    self_test: SelfTest


@dataclass
class SearchResult:
    """RESULT's reply: a search job's state and, once done, its result."""
    state: State
    best_valid: bool
    refused: bool         #: the thread refused the job (the board checks jobs first: never)
    score: int
    best: int
    nodes: int
    clocks: int


@dataclass
class BoardStatus:
    """STATUS's reply."""
    state: State
    bulk: bool
    self_test: bool       #: the count is the power-up self-test
    depth: int
    split: int
    leaves: int
    clocks: int


class BoardClient:
    """Drives one board over ``transport`` (see the module's docstring)."""

    def __init__(self, transport):
        self.transport = transport
        self.shadow = ShadowBoard()
        self.shadow.forget()  # whatever the board holds: the first load is a whole one
        self.info: BoardInfo | None = None
        self.interrupt = None  #: for search jobs: asked between polls (see ``search``)
        self._synced = bool(getattr(transport, "just_reset", False))

    def close(self) -> None:
        self.transport.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def version(self) -> int | None:
        return self.info.version if self.info else None

    # --- Commands ------------------------------------------------------------------------------

    def ping(self) -> BoardInfo:
        """Get in step with the board (unless it is fresh), check that it speaks this protocol,
        and return what it is."""
        if not self._synced:
            self.resync()
        name = self.transport.name
        reply = self._exchange(Cmd.PING)
        if len(reply) != PING_BYTES or reply[:len(PING_MAGIC)] != PING_MAGIC:
            self._lost()
            raise ProtocolError(f"{name} answered PING with {reply.hex(' ') or 'nothing'}, not "
                                f"a posdata board")
        version, engines, threads, variant, self_test = reply[len(PING_MAGIC):]
        if version != PROTOCOL_VERSION:
            raise ProtocolError(f"the board on {name} speaks protocol version {version}, this "
                                f"host version {PROTOCOL_VERSION}: rebuild the bitstream")
        if self_test not in set(SelfTest):
            self._lost()
            raise ProtocolError(f"{name} reports self-test state {self_test}, which protocol "
                                f"version {PROTOCOL_VERSION} does not have")
        self.info = BoardInfo(version, engines, threads, variant, SelfTest(self_test))
        self._synced = True
        return self.info

    def wait_self_test(self, limit: float = 10.0) -> BoardInfo:
        """PING until the board's power-up self-test has finished (it takes milliseconds on a
        board; a fresh simulated board is still counting) and return the last PING's reply."""
        info = self.ping()
        deadline = time.monotonic() + limit
        while info.self_test == SelfTest.RUNNING:
            if time.monotonic() > deadline:
                raise BoardTimeout(f"the power-up self-test of {self.transport.name} did not "
                                   f"finish within {limit:g} s")
            self.transport.sleep(self.transport.poll_interval)
            info = self.ping()
        return info

    def resync(self) -> None:
        """Silence for longer than the board's frame time-out (a half-sent command is dropped),
        then drain the line; the board's position is unknown from here on."""
        t = self.transport
        t.sleep(2 * t.frame_timeout_s)
        t.discard_input()
        self.shadow.forget()

    def command(self, cmd: Cmd, payload: bytes = b"", engine: int = ENGINE_ALL) -> bytes:
        """One exchange: the command's frame out, its reply's payload back (``BoardRefused`` for
        an error code)."""
        if not self._synced:
            self.ping()
        return self._exchange(cmd, payload, engine)

    def load(self, board) -> int:
        """Load ``board`` (its squares that changed since the last load, or all of them);
        returns the number of squares written."""
        load_cmd, payload, writes = self._load_frame(board)
        try:
            self.command(load_cmd, payload)
        except BaseException:
            self.shadow.forget()
            raise
        return writes

    def generate(self, board) -> Generation:
        """The pseudo-legal moves of ``board`` in generation order (the interface of
        ``sim.drivers.interface``)."""
        return self._listing(board, Cmd.GENERATE)

    def legal_moves(self, board) -> Generation:
        """The legal moves of ``board``, from the chip's legality unit (move words with from, to
        and the promotion only), and the generator's cycle count."""
        return self._listing(board, Cmd.LEGAL)

    def perft(self, board, depth: int, bulk: bool = True, split: int | None = None,
              progress=None, limit: float | None = None,
              engine: int | None = None) -> ChipCount:
        """Count perft(``depth``) of ``board`` on the board's chip (every engine, or ``engine``
        alone); ``progress(leaves, clocks)`` is called at every STATUS poll while it runs.
        ``limit`` (seconds): abort the count and raise ``BoardTimeout`` if it has not finished
        by then. Whenever it gives up on the count (that limit, a STATUS that does not come or
        comes garbled, an exception in ``progress``), it aborts the count on the board before
        raising, so that the board takes the next command."""
        if not 0 <= depth <= MAX_DEPTH:
            raise ValueError(f"depth must be from 0 to {MAX_DEPTH}, not {depth}")
        if split is None:
            split = default_split(depth)
        if not split_in_range(depth, split):
            raise ValueError(f"split must be from 0 to {max(0, depth - 1)} for depth {depth}, "
                             f"not {split}")
        self.load(board)
        self.command(Cmd.PERFT, perft_payload(depth, bulk, split),
                     engine=ENGINE_ALL if engine is None else engine)
        deadline = None if limit is None else time.monotonic() + limit
        try:
            return self._follow(depth, bulk, split, progress, deadline, limit)
        except _NotRunning as e:
            raise e.error from None
        except BaseException:
            # Giving up (no reply, a garbled one, the time limit, Ctrl-C, a failing progress
            # callback) must not leave the count running: the board would refuse every command
            # after it with BUSY until it ends, hours later for a deep one.
            self._abort_quietly()
            raise

    def _follow(self, depth, bulk, split, progress, deadline, limit) -> ChipCount:
        """Poll STATUS until the count started is done (``_NotRunning`` wraps the errors after
        which it is not running any more)."""
        while True:
            try:
                s = self.status()
            except BoardRefused as e:
                if e.code == Err.OVERFLOW:
                    raise _NotRunning(BoardError(
                        f"perft({depth}) on {self.transport.name} overflowed a move stack: the "
                        f"chip gives no count for it")) from None
                raise
            if (s.depth, s.bulk, s.split, s.self_test) != (depth, bool(bulk), split, False):
                # the count running is not this one: not this host's to abort
                raise _NotRunning(ProtocolError(
                    f"the board reports a count of depth {s.depth}, split {s.split}, not the "
                    f"one started (another host?)"))
            if s.state == State.DONE:
                return ChipCount(s.leaves, s.clocks, False, depth, bool(bulk), split, [])
            if s.state != State.RUNNING:
                raise _NotRunning(BoardError(f"perft({depth}) on {self.transport.name} was "
                                             f"{s.state.name.lower()} before it finished"))
            if progress:
                progress(s.leaves, s.clocks)
            if deadline is not None and time.monotonic() > deadline:
                raise BoardTimeout(f"perft({depth}) did not finish within {limit:g} s on "
                                   f"{self.transport.name}: aborted")
            self.transport.sleep(self.transport.poll_interval)

    def _abort_quietly(self) -> None:
        """ABORT after giving up on a count, getting back in step first if need be. Best
        effort: if the board does not answer, the error that made us give up is the one to
        report."""
        try:
            self.abort()
        except BoardError:
            pass

    def status(self) -> BoardStatus:
        reply = self.command(Cmd.STATUS)
        self._expect_length(Cmd.STATUS, reply, STATUS_BYTES)
        state, flags, depth, split = reply[:4]
        if state not in set(State) or flags & ~(FLAG_BULK | FLAG_SELF_TEST):
            self._lost()
            raise ProtocolError(f"{self.transport.name} sent a STATUS with state {state}, flags "
                                f"{flags:#04x}, which protocol version {PROTOCOL_VERSION} does "
                                f"not have")
        return BoardStatus(State(state), bool(flags & FLAG_BULK), bool(flags & FLAG_SELF_TEST),
                           depth, split, int.from_bytes(reply[4:12], "little"),
                           int.from_bytes(reply[12:20], "little"))

    def abort(self, thread: int = ENGINE_ALL) -> None:
        """Stop the running count or search job, if any (the board's position stays loaded);
        on a search board every job, or ``thread``'s."""
        self.command(Cmd.ABORT, engine=thread)

    # --- A search board's jobs (engine.search.host_search.LeafSearcher) ---------------------------

    def search(self, board, alpha: int, beta: int, depth: int, ply: int = 0,
               extensions: int = 0, limit: float | None = None) -> LeafResult:
        """One job of a search board's thread on ``board``: loaded (what changed), SEARCH
        (the window, depth, ply, ``extensions``, and the board's halfmove counter and history:
        the job's repetitions), then RESULT until it is done. ``interrupt`` (an attribute, as
        the compiled thread's):
        asked between polls; when it answers True the job is aborted and
        ``engine.search.searcher.SearchStopped`` raised. ``limit`` (seconds): abort and raise
        ``BoardTimeout`` past it."""
        job = (board, alpha, beta, depth, ply, extensions)
        check_job(*job)
        self._start_jobs([(ENGINE_ALL, job)])
        deadline = None if limit is None else time.monotonic() + limit
        while True:
            result = self.result()
            if result.state == State.DONE:
                break
            self._still_running(result)
            self._give_up_if_asked(deadline, limit)
            self.transport.sleep(self.transport.poll_interval)
        return self._leaf_result(result)

    @property
    def threads(self) -> int:
        """The board's search threads (PING's threads when it has no perft engines)."""
        info = self.info or self.ping()
        return info.threads if info.engines == 0 else 0

    def search_many(self, jobs, limit: float | None = None) -> list[LeafResult]:
        """Jobs over the search board's threads at once, ``jobs`` being (board, alpha, beta,
        depth, ply, extensions) each. Each round is two writes: the free threads' jobs (a
        LOAD or UPDATE and a SEARCH each, the engine byte naming the thread), then a RESULT
        for every running thread; a thread that finished takes the next job in the next round.
        So a batch no larger than the board's threads pays the link's round trip twice, and a
        further round trip per poll while its slowest job runs: the polls follow one another
        with no pause (a round trip is the pause). Returns the results in the jobs' order.
        ``interrupt`` and ``limit`` as for ``search``: every job on the board is aborted."""
        threads = self.threads
        if threads < 1:
            raise ProtocolError(f"{self.transport.name} has no search threads")
        for job in jobs:  # a job the thread would refuse: refused before anything is sent
            check_job(*job)
        results: list[LeafResult | None] = [None] * len(jobs)
        waiting = list(reversed(range(len(jobs))))
        running: dict[int, int] = {}  # thread: the job it runs
        deadline = None if limit is None else time.monotonic() + limit
        try:
            while waiting or running:
                starts = []
                for thread in range(threads):
                    if thread not in running and waiting:
                        running[thread] = waiting.pop()
                        starts.append((thread, jobs[running[thread]]))
                if starts:
                    self._start_jobs(starts)
                for (thread, i), result in zip(list(running.items()),
                                               self._results(list(running))):
                    if result.state == State.DONE:
                        results[i] = self._leaf_result(result)
                        del running[thread]
                    else:
                        self._still_running(result)
                self._give_up_if_asked(deadline, limit)
        except BaseException:
            if running:  # best effort: the error that ended the batch is the one to report
                self._abort_quietly()
            raise
        return results

    def _start_jobs(self, starts) -> None:
        """Each job's LOAD or UPDATE and its SEARCH to its thread (``starts``: (thread, job)
        pairs), written at once in pieces the board holds (``SEARCH_RX_BYTES``), every reply
        read before a refusal is raised, so the link stays in step; after a refusal the jobs
        that started are aborted. The callers have refused the jobs the thread would refuse
        (``check_job``), before anything is sent."""
        if not self._synced:
            self.ping()
        try:
            pieces, piece, commands = [], b"", []
            for thread, job in starts:
                load_cmd, frames, search_length = job_frames(self.shadow, job, thread)
                if piece and len(piece) + len(frames) > SEARCH_RX_BYTES:
                    pieces.append((piece, commands))
                    piece, commands = b"", []
                piece += frames
                commands.append((thread, load_cmd, search_length))
            pieces.append((piece, commands))
            refusal, started = None, []
            for data, commands in pieces:
                self.transport.write(data)
                for thread, load_cmd, search_length in commands:
                    try:
                        self._receive(load_cmd)
                    except BoardRefused as refused:
                        refusal = refusal or refused
                    try:
                        self._receive(Cmd.SEARCH)
                        started.append(thread)
                    except BoardRefused as refused:
                        refusal = refusal or self._explain_search(refused, search_length)
                if refusal is not None:
                    break
            # after a refusal the later jobs' UPDATEs missed the squares the refused one
            # would have written: every job of these writes is stopped, once every reply is
            # in (the link in step)
            for thread in started if refusal is not None else ():
                self.abort(thread)
            if refusal is not None:
                raise refusal
        except BaseException:
            self.shadow.forget()
            raise

    def _explain_search(self, refused: "BoardRefused", length: int) -> BoardError:
        # a search bitstream whose SEARCH carries no past (6 bytes) answers a longer one so;
        # the PING version is shared by every design and does not tell
        if refused.code == Err.BAD_LENGTH:
            return ProtocolError(
                f"the board on {self.transport.name} refused a {length}-byte SEARCH "
                f"(BAD_LENGTH): is its search bitstream older than the job's history? "
                f"rebuild it (posdata synth --search)")
        return refused

    def _results(self, threads: list[int]) -> list["SearchResult"]:
        """RESULT of each of ``threads``, the commands in one write."""
        if not threads:
            return []
        try:
            self.transport.write(b"".join(command_frame(Cmd.RESULT, b"", t) for t in threads))
        except BaseException:
            self._lost()
            raise
        return [self._result_reply(self._receive(Cmd.RESULT)) for _ in threads]

    def _still_running(self, result: SearchResult) -> None:
        if result.state != State.RUNNING:
            self._lost()
            raise ProtocolError(f"{self.transport.name} answered RESULT with state "
                                f"{result.state.name} for a job it took")

    def _give_up_if_asked(self, deadline, limit) -> None:
        """Between polls: abort every job if ``interrupt`` says so or past the deadline."""
        if self.interrupt is not None and self.interrupt():
            self.abort()
            raise SearchStopped
        if deadline is not None and time.monotonic() > deadline:
            self.abort()
            raise BoardTimeout(f"the search job did not finish within {limit:g} s")

    def _leaf_result(self, result: SearchResult) -> LeafResult:
        if result.refused:
            raise ProtocolError(f"{self.transport.name}'s thread refused a job the board took")
        return LeafResult(result.score, result.best if result.best_valid else None,
                          result.nodes, result.clocks)

    def result(self, thread: int = ENGINE_ALL) -> SearchResult:
        """RESULT: ``thread``'s job, or with ``ENGINE_ALL`` the last job the board started."""
        return self._result_reply(self.command(Cmd.RESULT, engine=thread))

    def _result_reply(self, reply: bytes) -> SearchResult:
        self._expect_length(Cmd.RESULT, reply, RESULT_BYTES)
        if reply[0] not in set(State):
            self._lost()
            raise ProtocolError(f"{self.transport.name} answered RESULT with state {reply[0]}")
        flags = reply[1]
        return SearchResult(State(reply[0]), bool(flags & FLAG_BEST), bool(flags & FLAG_REFUSED),
                            int.from_bytes(reply[2:4], "little", signed=True),
                            int.from_bytes(reply[4:7], "little"),
                            int.from_bytes(reply[7:15], "little"),
                            int.from_bytes(reply[15:23], "little"))

    # --- Frames --------------------------------------------------------------------------------

    def _load_frame(self, board) -> tuple[Cmd, bytes, int]:
        return load_frame(self.shadow, board)

    def _listing(self, board, cmd: Cmd) -> Generation:
        if not self._synced:
            self.ping()
        load_cmd, payload, writes = self._load_frame(board)
        try:
            # both commands at once: the board holds the second while it answers the first
            self.transport.write(command_frame(load_cmd, payload) + command_frame(cmd))
            try:
                self._receive(load_cmd)
            except BoardRefused as refused:
                try:
                    self._receive(cmd)  # read the listing's reply too: the link stays in step
                except BoardRefused:
                    pass
                raise refused from None
            reply = self._receive(cmd)
        except BaseException:
            self.shadow.forget()
            raise
        cycles = int.from_bytes(reply[:4], "little")
        count = int.from_bytes(reply[4:LISTING_HEADER], "little")
        self._expect_length(cmd, reply, LISTING_HEADER + MOVE_BYTES * count)
        moves = [int.from_bytes(reply[i:i + MOVE_BYTES], "little")
                 for i in range(LISTING_HEADER, len(reply), MOVE_BYTES)]
        garbage = [m for m in moves if m & ~MOVE_MASK]
        if garbage:
            self._lost()
            raise ProtocolError(f"{cmd.name} from {self.transport.name} holds a move word "
                                f"{garbage[0]:#08x} wider than {MOVE_BITS} bits")
        return Generation(moves, cycles, writes)

    def _exchange(self, cmd: Cmd, payload: bytes = b"", engine: int = ENGINE_ALL) -> bytes:
        try:
            self.transport.write(command_frame(cmd, payload, engine))
        except BaseException:
            self._lost()
            raise
        return self._receive(cmd)

    def _receive(self, cmd: Cmd) -> bytes:
        """The reply to ``cmd``: its payload, or ``BoardRefused``."""
        name, what = self.transport.name, command_name(cmd)
        try:
            head = self._read(REPLY_HEADER, f"the {what} reply")
            status, echo, length = head[0], head[1], int.from_bytes(head[2:4], "little")
            if head == b"POS\x01":
                raise ProtocolError(f"the board on {name} speaks protocol version 1, this host "
                                    f"version {PROTOCOL_VERSION}: rebuild the bitstream")
            if echo != cmd or status not in set(Err) or (status != Err.OK and length):
                raise ProtocolError(f"{name} sent a garbled reply header {head.hex(' ')} to "
                                    f"{what}: is the baud rate right?")
            if length > MAX_REPLY.get(cmd, 0):
                raise ProtocolError(f"{name} announced a {length}-byte reply to {what}, more "
                                    f"than it can have: a garbled line?")
            rest = self._read(length + 1, f"the {length}-byte {what} reply's payload and CRC")
            if crc8(head + rest) != 0:
                raise ProtocolError(f"the {what} reply from {name} failed its CRC check: a "
                                    f"garbled line?")
        except BaseException:
            self._lost()
            raise
        if status != Err.OK:
            if status in LINK_ERRORS:
                self._lost()
            raise BoardRefused(cmd, Err(status), name)
        return rest[:-1]

    def _expect_length(self, cmd: Cmd, reply: bytes, length: int) -> None:
        if len(reply) != length:
            self._lost()
            raise ProtocolError(f"{self.transport.name} sent {len(reply)} bytes for "
                                f"{command_name(cmd)}, "
                                f"not {length}")

    def _lost(self) -> None:
        """Out of step with the board: resync before the next command, then a whole load."""
        self._synced = False
        self.shadow.forget()

    def _read(self, n: int, what: str) -> bytes:
        data = self.transport.read(n)
        if len(data) < n:
            got = f", got {len(data)} of {n} bytes" if data else ""
            raise BoardTimeout(f"{what} did not arrive from {self.transport.name} within "
                               f"{self.transport.limit}{got}")
        return data


def search_job_payload(board, alpha: int, beta: int, depth: int, ply: int,
                       extensions: int = 0) -> bytes:
    """SEARCH's payload for a job on ``board``: its halfmove counter (saturated) and the hashes
    of the positions its repetition test compares with, as the thread takes them
    (``sim.drivers.search_job``)."""
    # imported here: search_job's layouts import amaranth, which the host's other commands
    # and importing this module do without
    from .search_job import history_hashes, past_values
    return search_payload(alpha, beta, depth, ply, extensions, past_values(board)["fifty"],
                          history_hashes(board))


def board_state(board) -> bytes:
    """LOAD's and UPDATE's state bytes for ``board``: its root fields and en passant's victim
    (the pawn that passed: Berolina's stands beside the square it crossed)."""
    return state_bytes(**position_inputs(board), ep_victim=max(board.ep_victim(), 0))


def load_frame(shadow: ShadowBoard, board) -> tuple[Cmd, bytes, int]:
    """The command that brings the board's position from ``shadow`` (brought up to date) to
    ``board``'s: UPDATE of the squares that changed, or LOAD when many did; its payload and
    the squares written."""
    writes = shadow.diff(board)
    state = board_state(board)
    if len(writes) > FULL_LOAD_ABOVE:
        return Cmd.LOAD, load_payload(square_codes(board), state), len(writes)
    return (Cmd.UPDATE, update_payload(state, ((sq, square_code(c, p)) for sq, c, p in writes)),
            len(writes))


def job_frames(shadow: ShadowBoard, job, thread: int = ENGINE_ALL) -> tuple[Cmd, bytes, int]:
    """The frames that start ``job`` (board, alpha, beta, depth, ply, extensions) on
    ``thread``: its position's LOAD or UPDATE against ``shadow`` (brought up to date), then
    its SEARCH; the load's command and SEARCH's payload length."""
    load_cmd, payload, _ = load_frame(shadow, job[0])
    search = search_job_payload(*job)
    return load_cmd, command_frame(load_cmd, payload) + command_frame(Cmd.SEARCH, search,
                                                                      thread), len(search)


# --- A real board ------------------------------------------------------------------------------

class SerialTransport:
    """A board on a serial port. ``timeout`` (seconds) bounds every read, plus the time the
    bytes asked for take on the line."""

    poll_interval = 0.02

    def __init__(self, port: str, baud: int = DEFAULT_BAUD, timeout: float = 1.0):
        try:
            import serial
        except ImportError:
            raise BoardError("pyserial is not installed (pip install pyserial)") from None
        self.name = port
        self.baud = baud
        self.timeout = timeout
        self.limit = f"{timeout:g} s"
        self.frame_timeout_s = FRAME_TIMEOUT_BYTES * UART_FRAME_BITS / baud
        try:
            self._port = serial.Serial(port, baud, timeout=timeout)
        except (serial.SerialException, OSError, ValueError) as e:
            # pyserial wraps the OS error ("[Errno 2] could not open port X: [Errno 2] ..."):
            # name the operating system's reason once.
            cause_args = getattr(e.__cause__ or e.__context__, "args", ())
            if len(cause_args) == 2 and isinstance(cause_args[1], str):
                reason = cause_args[1]  # OSError and termios.error: (errno, text)
            else:
                reason = " ".join(str(e).split())
            raise BoardError(f"cannot open serial port {port} at {baud} baud: {reason}") from None

    def write(self, data: bytes) -> None:
        self._port.write(data)
        self._port.flush()

    def read(self, n: int) -> bytes:
        self._port.timeout = self.timeout + n * UART_FRAME_BITS / self.baud
        return self._port.read(n)

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def discard_input(self, quiet: float = 0.05) -> None:
        """Drop what has arrived and whatever follows until the line has been quiet for
        ``quiet`` seconds (or 30 byte times, if longer)."""
        quiet = max(quiet, 300 / self.baud)
        self._port.timeout = quiet
        self._port.reset_input_buffer()
        while self._port.read(4096):
            pass

    def close(self) -> None:
        self._port.close()


def open_search_board(port: str, baud: int = DEFAULT_BAUD, timeout: float = 1.0) -> BoardClient:
    """A client of the search board on ``port`` (a leaf searcher); ``BoardError`` if the port
    does not answer or PING says another board (a perft board: engines; the iCEBreaker: no
    threads)."""
    client = BoardClient(SerialTransport(port, baud, timeout=timeout))
    try:
        info = client.ping()
        if not (info.engines == 0 and info.threads > 0):
            raise BoardError(f"the board on {port} carries the "
                             + ("perft chip" if info.engines else "move generator alone")
                             + ", not the search thread: build and program the search board "
                             "(posdata synth --search; posdata program --search)")
    except BaseException:
        client.close()
        raise
    return client
