"""The numbers of UCI's ``go``: read where they enter (ASCII integers only, checked against a
range and clamped into it), and the search limits they give.

A GUI's numbers are not trusted: ``go wtime`` with 400 digits, a negative clock after the flag
fell, ``go depth 0`` or ``go depth 9999`` each become a sane limit, and what was changed or
ignored is said in an ``info string``. A value that is not an integer at all is ignored; a ``go``
whose every limit was unusable still searches (``FALLBACK_MOVETIME_MS``), so that it ends in a
bestmove.
"""

import re
from dataclasses import dataclass, field

from ..search.searcher import MAX_DEPTH, Limits

#: time kept back from every deadline for the interpreter's and the pipe's latency
MOVE_OVERHEAD_MS = 30
MIN_SEARCH_MS = 5
#: a clock with no movestogo is shared as if this many moves remained
DEFAULT_MOVES_TO_GO = 30
#: a go whose every limit was malformed still moves, after this long
FALLBACK_MOVETIME_MS = 1000
#: the longest time taken from a GUI: 2^31 - 1 ms (24.8 days), what a 32-bit engine holds
MAX_TIME_MS = 2**31 - 1

#: go's integer parameters and the range each is clamped into. A negative clock (some GUIs send
#: one once the flag has fallen) is no time left: move at once.
INT_PARAMS = {
    "wtime": (0, MAX_TIME_MS), "btime": (0, MAX_TIME_MS),
    "winc": (0, MAX_TIME_MS), "binc": (0, MAX_TIME_MS),
    "movetime": (0, MAX_TIME_MS), "movestogo": (1, 10_000),
    "depth": (1, MAX_DEPTH), "nodes": (1, 10**15), "mate": (1, (MAX_DEPTH + 1) // 2),
}
FLAGS = ("infinite", "ponder")
KEYWORDS = frozenset(INT_PARAMS) | frozenset(FLAGS) | {"searchmoves"}
#: at most this many complaints about one go line are printed (a GUI's line can be long)
MAX_PROBLEMS = 8

# ASCII only: int() also takes "1_000" and other scripts' digits, which no GUI means.
_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
#: more digits than this are beyond every range: read as +-10**_MAX_DIGITS, never converted
#: (int() refuses over 4,300 digits, and a float of one overflows)
_MAX_DIGITS = 19


def parse_int(text: str) -> int:
    """An integer written as UCI writes it: ASCII digits with an optional sign; ValueError if
    not. One with more than 19 digits is read as +-10**19 (it is clamped anyway)."""
    if not _INTEGER.match(text):
        raise ValueError(f"not an integer: {shown(text)}")
    sign = -1 if text[0] == "-" else 1
    digits = text.lstrip("+-").lstrip("0") or "0"
    if len(digits) > _MAX_DIGITS:
        return sign * 10**_MAX_DIGITS
    return sign * int(digits)


def shown(text: str | None, width: int = 24) -> str:
    """A value as echoed back in an info string: quoted, and cut short if long."""
    if text is None:
        return "nothing"
    if len(text) <= width:
        return repr(text)
    return f"{text[:width - 8]!r}... ({len(text)} characters)"


def clipped(text: str, width: int = 40) -> str:
    """``text`` unquoted, cut short if long."""
    return text if len(text) <= width else f"{text[:width - 8]}... ({len(text)} characters)"


@dataclass
class GoRequest:
    params: dict = field(default_factory=dict)  #: name -> clamped integer
    flags: set = field(default_factory=set)  #: infinite, ponder
    searchmoves: list = field(default_factory=list)  #: legal move words
    malformed: bool = False  #: some value was unusable and ignored
    problems: list = field(default_factory=list)  #: what to say in info strings

    def complain(self, text: str) -> None:
        self.problems.append("go: " + text)


def parse_go(args: list[str], parse_move) -> GoRequest:
    """go's words after ``go``. ``parse_move(text)`` is the legal move written so (ValueError
    if none), for searchmoves."""
    go = GoRequest()
    i = 0
    while i < len(args):
        token = args[i]
        if token in INT_PARAMS:
            value = args[i + 1] if i + 1 < len(args) else None
            if value is None or value in KEYWORDS:  # "go depth infinite": the flag still counts
                go.complain(f"{token} needs an integer, not {shown(value)}; ignored")
                go.malformed = True
                i += 1
                continue
            i += 2
            try:
                n = parse_int(value)
            except ValueError:
                go.complain(f"{token} needs an integer, not {shown(value)}; ignored")
                go.malformed = True
                continue
            low, high = INT_PARAMS[token]
            if not low <= n <= high:
                n = min(max(n, low), high)
                go.complain(f"{token} {shown(value)} is out of range {low} to {high}; "
                            f"using {n}")
            go.params[token] = n
        elif token in FLAGS:
            go.flags.add(token)
            i += 1
        elif token == "searchmoves":
            i += 1
            while i < len(args) and args[i] not in KEYWORDS:
                try:
                    go.searchmoves.append(parse_move(args[i]))
                except ValueError:
                    go.complain(f"searchmoves: {shown(args[i])} is not a legal move")
                i += 1
        else:
            go.complain(f"unknown parameter {shown(token)}; ignored")
            i += 1
    return go


def clock_limits(params: dict, white: bool) -> tuple[float | None, float | None]:
    """(hard, soft) time limits in ms from movetime or the clock of the side to move; None where
    there is none."""
    if "movetime" in params:
        return max(params["movetime"] - MOVE_OVERHEAD_MS, MIN_SEARCH_MS), None
    clock = params.get("wtime" if white else "btime")
    if clock is None:
        if "wtime" in params or "btime" in params:  # only the other side's clock: none left
            clock = 0
        else:
            return None, None
    inc = params.get("winc" if white else "binc", 0)
    moves_to_go = params.get("movestogo", DEFAULT_MOVES_TO_GO)
    target = min(clock / moves_to_go + inc * 3 / 4, clock / 2)
    # Stop starting iterations at half the target (the next one takes several times longer
    # than all before it); abort one that runs past twice the target.
    hard = max(min(2 * target, clock / 2) - MOVE_OVERHEAD_MS, MIN_SEARCH_MS)
    return hard, target / 2


def limits_for(params: dict, flags: set, white: bool) -> Limits:
    limits = Limits(infinite=bool(flags & {"infinite", "ponder"}))
    if "depth" in params:
        limits.depth = min(params["depth"], MAX_DEPTH)
    if "mate" in params:  # a mate in n moves lies within 2n - 1 plies
        depth = min(2 * params["mate"] - 1, MAX_DEPTH)
        limits.depth = min(limits.depth or depth, depth)
    if "nodes" in params:
        limits.nodes = params["nodes"]
    if not limits.infinite:  # the clock does not run while pondering or analysing
        limits.time_ms, limits.soft_time_ms = clock_limits(params, white)
    return limits


def ponderhit_ms(params: dict, white: bool) -> float | None:
    """How long a ponder search goes on after ``ponderhit``: the time a search of this go would
    have aimed at (the search's soft limit is fixed when it starts, so the hard one is set to
    the target); None when the go gave no time."""
    hard, soft = clock_limits(params, white)
    if hard is None:
        return None
    return hard if soft is None else max(min(hard, 2 * soft), MIN_SEARCH_MS)
