"""The search thread (hdl.search.search_thread) as a compiled model: a job in, the score, best
move, nodes and clocks out. A ``host_search.LeafSearcher``: ``search(board, alpha, beta, depth,
ply, extensions)`` returns a ``LeafResult`` as the reference does, with the chip's clocks; the
board's history gives the job's past (sim.drivers.search_job).

The library is built and cached like the perft chip's, by CXXRTL (sim.models.cxxrtl, design
``search``) or Verilator (sim.models.verilator): their entries have the same functions and count
the same clocks, so this one driver runs either.
"""

import ctypes
from collections import Counter

from posdata.engine.search.leaf_search import LeafResult, check_job
from posdata.engine.search.searcher import SearchStopped
from posdata.hdl.common.contract import COLOR_BITS, square_codes
from posdata.hdl.search.search_thread import STATES

from ..models.library import build_model
from .compiled_model import CompiledModel, i32, pointer, u32, u64, vp
from .interface import WatchdogError
from .search_job import history_hashes, job_word, past_word

CHUNK = 1 << 20  #: clocks per call into the native loop
#: ... while ``interrupt`` is set: tens of milliseconds between looks at it
INTERRUPTIBLE_CHUNK = 1 << 15


class SearchModel(CompiledModel):
    """Jobs on the compiled search thread. ``phases`` sums each job's clocks per state of the
    thread's control (``STATES``) since the model was made; ``load_clocks`` the clocks its
    ``jobs`` took to load and start (a result's ``clocks`` count from the start to the result).
    ``interrupt``, if set, is asked between slices of a job's clocks: when it answers True the
    job is aborted (the thread's ABORT) and ``engine.search.searcher.SearchStopped`` raised.
    ``simulator``: ``cxxrtl`` or ``verilator``, by default sim.drivers.targets' choice (unless
    ``library`` is given: a model already built)."""

    MODEL = "the compiled search thread"
    PREFIX = "posdata_search_"
    SIGNATURES = {
        "posdata_search_load": ([vp, ctypes.c_char_p, u32], None),
        "posdata_search_history": ([vp, pointer(u64), u32], None),
        "posdata_search_start": ([vp, u64, u64], None),
        "posdata_search_run": ([vp, u64, pointer(u64)], i32),
        "posdata_search_phases": ([vp, pointer(u64)], None),
        "posdata_search_load_clocks": ([vp], u64),
        "posdata_search_abort": ([vp, u64], u64),
    }

    def __init__(self, library: str | None = None, verbose: bool = True,
                 simulator: str | None = None):
        if simulator is None:
            from .targets import model_default
            simulator = model_default("search")
        self.simulator = simulator
        super().__init__(library or build_model(simulator, "search", None, verbose))
        self.load_clocks = 0  #: the jobs' loads and starts, clocks counted by the model
        self.jobs = 0
        self.phases = Counter()
        self._phases = (u64 * len(STATES))()
        self.interrupt = None
        self._out = (u64 * 6)()

    def search(self, board, alpha: int, beta: int, depth: int, ply: int = 0,
               extensions: int = 0, watchdog: int = 1 << 32) -> LeafResult:
        check_job(board, alpha, beta, depth, ply, extensions)
        result, error = self.job(board, alpha, beta, depth, ply, extensions, watchdog)
        if error:
            raise ValueError(f"the search thread refused the job ({alpha}, {beta}) depth {depth}")
        return result

    def begin(self, board, alpha: int, beta: int, depth: int, ply: int = 0,
              extensions: int = 0) -> None:
        """Load ``board`` and its history and start the job, unchecked (the thread judges
        it)."""
        self.lib.posdata_search_load(self.handle, square_codes(board), COLOR_BITS)
        hashes = history_hashes(board)
        self.lib.posdata_search_history(self.handle, (ctypes.c_uint64 * len(hashes))(*hashes),
                                        len(hashes))
        self.lib.posdata_search_start(self.handle,
                                      job_word(board, alpha, beta, depth, ply, extensions),
                                      past_word(board))

    def run(self, clocks: int) -> bool:
        """Run the job under way up to ``clocks`` clocks; True once its result is out."""
        return bool(self.lib.posdata_search_run(self.handle, clocks, self._out))

    def abort(self, max_clocks: int = 1 << 20) -> int:
        """Abort the job under way; the clocks until the thread was idle."""
        return self.lib.posdata_search_abort(self.handle, max_clocks)

    def job(self, board, alpha: int, beta: int, depth: int, ply: int = 0, extensions: int = 0,
            watchdog: int = 1 << 32) -> tuple[LeafResult, bool]:
        """A job as the thread takes it, unchecked: its result and whether it was refused."""
        lib, h, out = self.lib, self.handle, self._out
        self.begin(board, alpha, beta, depth, ply, extensions)
        clocks = 0
        chunk = CHUNK if self.interrupt is None else INTERRUPTIBLE_CHUNK
        while not lib.posdata_search_run(h, chunk, out):
            clocks += chunk
            if self.interrupt is not None and self.interrupt():
                self.abort()
                raise SearchStopped
            if clocks > watchdog:
                raise WatchdogError(f"the search thread did not finish within {watchdog} clocks")
        lib.posdata_search_phases(h, self._phases)
        self.load_clocks += lib.posdata_search_load_clocks(h)
        self.jobs += 1
        for i, name in enumerate(STATES):
            self.phases[name] += self._phases[i]
        score = out[0] - (1 << 16) if out[0] >> 15 else out[0]
        best = out[1] if out[2] else None
        return LeafResult(score, best, out[3], out[4]), bool(out[5])
