"""The formal checks: each property group, the harness that states it, and how it is checked.

``prove`` is k-induction (sby's basecase and induction together): the property holds in every
reachable state. ``bmc`` is bounded: no counterexample within ``depth`` clocks of reset.
``cover``: every Cover statement is reached within ``depth`` clocks. ``fast`` checks run in
``make formal`` and ``make test``; the rest join them in ``make formal-full``.
"""

from dataclasses import dataclass
from typing import Callable

#: the make-unmake checks start with the rig's state free (harness_make_unmake); the move
#: stack's memory reads (the stack, the ply records' RAM) are cut to free outputs: they play no
#: part in a make and unmake (its records are read from their registers), and any behaviour of
#: theirs is allowed, so a pass still holds for the real ones. The board's table of which piece
#: codes go into which attacker plane (``kinds``, hdl.chip.chessboard) keeps its contents: it is
#: the variant's rule, not state, and the harness reckons the planes by the same rule
FREE_STATE = ("setattr -unset init top.rig*/w:*; "
              "delete top.rig*/t:$meminit_v2 top.rig*/r:MEMID=\\kinds %d; "
              "cutpoint top.rig.stack*/t:$memrd_v2")


@dataclass(frozen=True)
class Check:
    name: str
    harness: Callable      # () -> the harness elaboratable
    mode: str              # "prove", "bmc" or "cover"
    depth: int
    fast: bool
    what: str
    script: str = ""       # yosys commands between reading the design and prep


def run(check, name=None):
    """Check ``check`` with sby (its result, sby.Result); ``name``: its work directory."""
    from . import sby
    return sby.run(name or check.name, check.harness(), mode=check.mode, depth=check.depth,
                   script=check.script)


def _core(group):
    from .harness_core import CoreHarness
    return lambda: CoreHarness(group)


def _walker(group):
    from .harness_walker import WalkerHarness
    return lambda: WalkerHarness(group)


def _prefetch(group):
    from .harness_prefetch import PrefetchHarness
    return lambda: PrefetchHarness(group)


def _movegen():
    from .harness_movegen import MoveGenHarness
    return MoveGenHarness


def _thread(group):
    from .harness_thread import ThreadHarness
    return lambda: ThreadHarness(group)


def _make_unmake(group):
    from .harness_make_unmake import MakeUnmakeHarness
    return lambda: MakeUnmakeHarness(group)


def _search(group):
    from .harness_search import SearchHarness
    return lambda: SearchHarness(group)


def _uart():
    from .harness_uart import UartLoopback
    return UartLoopback


CHECKS = [
    Check("stream", _core("stream"), "prove", 4, True,
          "move stream: valid stays up and the payload stable until ready"),
    Check("done", _core("done"), "prove", 6, True,
          "nothing emitted while idle; one done per accepted start; busy spans the "
          "generation; the walker starts idle with no piece queued"),
    Check("start-busy", _core("start"), "prove", 4, True,
          "a start while busy is ignored: the clock count runs on"),
    Check("walker-step", _walker("step"), "prove", 4, True,
          "each walker step goes to the successor the ROM word names (rule, end bits, "
          "stall replays, a new piece at its base)"),
    Check("walker-side", _walker("side"), "prove", 4, True,
          "the walker's moves start on the side to move and do not end on its colour"),
    Check("prefetch-order", _prefetch("order"), "prove", 4, True,
          "pieces offered: the side to move's, in ascending square order"),
    Check("prefetch-queue", _prefetch("queue"), "prove", 4, True,
          "prefetch queue within its depth; the k-th start entry in is the k-th piece out"),
    Check("fifo", _core("fifo"), "prove", 6, True,
          "walk-context FIFOs: never written full, never read empty, within depth"),
    Check("movegen-reset", _movegen(), "prove", 4, True,
          "reset returns to idle and keeps the board; writes while busy are ignored; "
          "start while busy ignored"),
    Check("side", _core("side"), "bmc", 13, True,
          "every emitted move (castling included) starts on the side to move and does not "
          "end on its colour"),
    Check("uart", _uart(), "bmc", 50, True,
          "UART loopback at divisor 4: each byte arrives unchanged, no framing error or "
          "overrun"),
    Check("cover-moves", _core("cover"), "cover", 14, True,
          "every kind of move is reachable"),
    Check("thread-overflow", _thread("sticky"), "prove", 3, True,
          "move stack: the overflow flag is sticky until a new count"),
    Check("make-unmake", _make_unmake("inverse"), "bmc", 11, True,
          "make/unmake: make then unmake restores the position exactly (a plain count's last "
          "ply, from any consistent board and any move the generator can emit; depth 11 "
          "covers the longest sequence to its end)", script=FREE_STATE),
    Check("make-unmake-cover", _make_unmake("cover"), "cover", 11, True,
          "make-unmake is not vacuous: castling, en passant, a capturing promotion, a capture "
          "and a quiet move each reach the comparison", script=FREE_STATE),
    Check("search-window", _search("window"), "prove", 2, True,
          "search thread: alpha < beta in the current ply's record while searching; a node "
          "leaves with a score within its window; the result within the job's window (any "
          "evaluation, board, legality answers, move order and make/unmake timing)"),
    # --- make formal-full ---
    Check("order-fifo", _core("order"), "prove", 6, False,
          "the merger's order FIFO (one entry per piece, 16) never overflows"),
    Check("side-deep", _core("side"), "bmc", 18, False,
          "as side, deeper"),
    Check("cover-stall", _core("stall"), "cover", 40, False,
          "a walk context stalls on a full FIFO"),
    Check("thread-range", _thread("range"), "bmc", 12, False,
          "perft thread: stack pointer within the stack, ply within the depth"),
    Check("uart-deep", _uart(), "bmc", 100, False,
          "as uart: two back-to-back frames and more"),
    Check("search-window-deep", _search("window-bounded"), "bmc", 16, False,
          "as search-window, bounded from reset, and the child's score, negated, within its "
          "parent's window as the parent takes it back"),
]

FAST = [c for c in CHECKS if c.fast]
BY_NAME = {c.name: c for c in CHECKS}
