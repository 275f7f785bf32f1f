"""The pipelined search thread's clocks per node, estimated from the reference's events: the
event model of docs/chip_search.md, "The pipelined thread: the design for 100 MHz", "Clocks per
node".

    .venv/bin/python bench/search_pipeline.py [--depth 4] [--chip-depth 2] [--positions NAME ...]
                                              [--states "Judge 5.45, Next 4.91, ..."]
                                              [--measured C] [--json FILE]

The tree: the host's search of bench/search.py's eight positions at host depth 4, chip depth 2,
exactly as bench/search_chip.py runs it, with the reference below the split
(engine/search/leaf_search.py's ``LeafSearch``, subclassed here to record; no gateware, no
Amaranth). The whole run takes about two minutes (on a busy 2-core machine: the recording
63-82 s, the costs, a dozen passes over the 415,898 segments, about 25 s more).

**The events.** In each node that asks the capture finder the recorder notes, in order, what the
thread's control would see of the move stream: each victim the scan asks about; each candidate
(its source: a push promotion, stage 1's aggressors or stage 2's stack; whether its legality
needs the attack unit's query; castling; illegal, settled or made on the chip; the child's
depth; made whatever its evaluation). A **segment** runs from a node's entry, a made child's
return or the walk's end to the next made child (the chip's Make) or the stream's end.

**Costed two ways.** (a) Today's rules (``today_clocks``): the thread as built, one move at a
time through Next, Test and Judge; over the bench tree they give today's measured Next, Test and
Judge clocks per node to the hundredth, which checks the recording. (b) The pipelined latencies
(``pipelined_clocks``, ``Latencies``): the doc's stage table, candidates streaming one a clock,
decided in order. The states outside the stream (Collect, Kind, Make, ...) keep today's
measured clocks: bench/search_chip.py's "clocks per node by state", read from
docs/measurements.json's "search-chip" run when it holds them (``clocks_by_state``), else given
with ``--states`` (that line as search_chip.py prints it). Without either, the stream alone.
To them the pipelined design adds a clock per walk (the killers' comparators registered) and
``OWN_EVAL_EXTRA`` clocks per own evaluation (every job root and every castling child made);
"with the loads" adds the search-chip run's load and start, per node, as measured.

The estimate is kept + stream; with ``--measured C`` (the built pipelined thread's whole-tree
clocks per node, without the load, as bench/search_chip.py prints it) the bench checks the
estimate: the measurement within 25 % of it, else exit status 1.
"""

import argparse
import collections
import json
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import NamedTuple

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import CASTLE
from posdata.engine.search import capture_finder
from posdata.engine.search.host_search import HostSearch
from posdata.engine.search.leaf_search import (
    FIFTY_PLIES,
    LeafSearch,
    LeafStats,
    may_give_check,
    needs_query,
    repeats,
)

from results import add_json_option, write_json
from search import POSITIONS

MEASUREMENTS = Path(__file__).resolve().parent.parent / "docs" / "measurements.json"
TOLERANCE = 0.25  #: issue 39: the bench checks the estimate within 25 %
STREAM_STATES = ("Next", "Test", "Judge")  #: today's states that the pipelined stream replaces

# --- today's thread (hdl/search/search_thread.py), its rules as the model counts them -------
IN_CHECK_KNOWN = 6  #: the node's in-check answer is in at Enter + 6 (asked in Enter, the
                    #: attack unit's LATENCY 5, hdl/chip/attack.py); a move's Test waits for it
QUERY = 5           #: today: a legality query's answer 5 clocks after its Test clock (the
                    #: attack unit's LATENCY)
CHILD_EVAL = 4      #: today: the child's evaluation 4 clocks after its Next clock (ChildEval's
                    #: LATENCY 3, hdl/search/child_eval.py, from the clock after Next)
CASTLE_TESTS = 3    #: castling: three queries, a clock each (in Test, today and pipelined)


@dataclass(frozen=True)
class Latencies:
    """The pipelined thread's latencies in clocks (docs/chip_search.md, "The stages" and the
    latencies under "Clocks per node"). ``SENSITIVE`` names the ones the doc's sensitivities
    move a clock either way."""
    #: from Enter's clock to the first victim: M1, M2 (the attack map), V1, V2, V3 (the stage
    #: table's rows M1-V3): Enter + 9 with ``aggressor``
    scan: int = 5
    #: after a Return or the walk: V1-V3 from the attack map kept in the ply record (the stage
    #: table's V1-V3; M1-M2 are not redone): Return + 8 with ``aggressor``
    rescan: int = 3
    #: A1-A5, the aggressor unit (the stage table's rows A1-A5): a victim's first candidate
    #: registered ``aggressor - 1`` clocks after the victim; each later victim a clock later
    aggressor: int = 5
    #: a candidate's decision at T + 7: T (the clock after the candidate's), E1-E6 and D's
    #: registered flags (the stage table's rows T, E1-E6, D); then one a clock
    decide: int = 7
    #: a legality query's answer: T + 5 (the stage table's row T: the legality query) for a
    #: child made whatever its evaluation (depth >= 1, or castling, or may give check where
    #: it matters) and for an illegal move
    query: int = 5
    #: a push promotion's candidate (the stage table's row P, stage 0): 1 clock into the stream
    promo: int = 1
    #: a stage-2 candidate (the stage table's row P, stage 2: the stack read, P): 2 clocks in
    stack: int = 2
    #: the node's in-check answer, Enter + 6 as today (the stage table's row T: a move waits
    #: there until it is in); not moved by the sensitivities
    known: int = IN_CHECK_KNOWN
    #: the model's own assumption, in no row of the table: the stream ends 3 clocks after the
    #: scan's last victim when stage 1 runs out (V3's empty flag registered, the control's step)
    end_scan: int = 3
    #: the attack map drops victims no own piece attacks (the stage table's row V1: the masks
    #: AND ``attacked``): they cost no clock. False: every victim scanned, a clock each
    attack_map: bool = True
    #: candidates stream one a clock, decided in order. False: the same stages, one move at a
    #: time (a candidate enters only after the one before is decided)
    streaming: bool = True


SENSITIVE = ("scan", "rescan", "aggressor", "decide", "query", "promo", "stack")
#: a child made whatever its evaluation commits no sooner than ``decide - MADE_AHEAD``: Make and
#: Settle lie between the commit and its Enter, by which its evaluation is in (the doc's T + 4)
MADE_AHEAD = 3
WALK_EXTRA = 1  #: the walk's killer comparators registered: a clock more per walk ("The sums")
OWN_EVAL_EXTRA = 4  #: a node's own evaluation (job roots, castling's children) through the
                    #: evaluation's stages (T, E1-E6: 7) against today's ChildEval (3)


# --- the events -----------------------------------------------------------------------------

VICTIM = "victim"  #: an item: a victim the scan asks about
PROMO, STAGE1, STACK = "promo", "stage1", "stack"  #: a candidate's source
ILLEGAL, SETTLED, MADE = "illegal", "settled", "made"  #: a candidate's outcome on the chip
ENTRY, RETURN, WALK = "entry", "return", "walk"  #: a segment's start
#: a segment's end: a made child (its Judge, or its decision), stage 1 run out (a Next clock
#: to Walk or Leave), stage 2 run out (a Next clock to Leave or Check)
ENDS_MADE, ENDS_STAGE1, ENDS_STAGE2 = "made", "exhausted1", "exhausted2"


class Cand(NamedTuple):
    """A candidate move of the stream."""
    query: bool    #: its legality needs the attack unit (leaf_search.needs_query)
    castle: bool
    src: str       #: PROMO, STAGE1 or STACK
    outcome: str   #: ILLEGAL, SETTLED or MADE (on the chip)
    depth: int     #: the child's remaining depth
    forced: bool   #: made whatever its evaluation: castling, or may give check where it matters


class Segment(NamedTuple):
    start: str     #: ENTRY, RETURN or WALK
    first: int     #: an entry's first stream clock after Enter (Enter = 0); 0 otherwise
    items: tuple   #: VICTIM and Cand, in order
    end: str       #: ENDS_MADE, ENDS_STAGE1 or ENDS_STAGE2


def matters(depth: int, extensions: int, rules) -> bool:
    """Would a check change the kind of a node at ``depth`` (leaf_search.LeafSearch.node)?"""
    return (depth >= 0 and extensions < rules.max_extensions
            or depth <= 0 and -depth < rules.qs_check_plies)


def finder_stream(board):
    """capture_finder.capture_stage's order with the victims shown: ("move", m) and
    (VICTIM, v). Lazy, read with the board in the node's position."""
    for m in capture_finder.promotion_pushes(board):
        yield PROMO, m
    for v in capture_finder.victims(board):
        yield VICTIM, v
        for m in capture_finder.aggressors(board, v):
            yield STAGE1, m


class Frame:
    """A node's recording: its current segment."""
    __slots__ = ("first", "start", "items", "finder", "walked", "stopped", "cut", "in_moves")

    def __init__(self, first: int):
        self.first, self.start, self.items = first, ENTRY, []
        self.finder, self.walked, self.stopped, self.cut, self.in_moves = None, False, False, \
            False, False


class Recorder(LeafSearch):
    """The reference search of one job, noting the stream's events into ``log`` (a
    ``RecordingLeaf``). The search itself is LeafSearch's, unchanged."""

    def __init__(self, board, log: "RecordingLeaf"):
        super().__init__(board)
        self.log = log
        self.frames: list[Frame] = []

    def node(self, alpha, beta, depth):
        waits = matters(depth, self.extensions, self.rules) and self.maybe_check and depth <= 0
        # the stream's first clock: after Kind when the node waits for its in-check answer
        self.frames.append(Frame(IN_CHECK_KNOWN + 1 if waits else 1))
        try:
            return super().node(alpha, beta, depth)
        finally:
            self.frames.pop()

    def full(self, alpha, beta, depth):
        f = self.frames[-1]
        if self.rules.draws and self.ply() != 0 and self.board.fifty < FIFTY_PLIES:
            _, reads = repeats(self.board)
            f.first = max(f.first, 1) + 2 + reads  # after Repeat's scan
        return super().full(alpha, beta, depth)

    def moves(self, alpha, beta, child_depth):
        f = self.frames[-1]
        self._open(f)
        f.in_moves = True
        x = super().moves(alpha, beta, child_depth)
        self._close(f)
        return x

    def quiesce(self, alpha, beta, below, check=False):
        f = self.frames[-1]
        self._open(f)
        asked = self.stats.finder_nodes
        x = super().quiesce(alpha, beta, below, check)
        if self.stats.finder_nodes != asked and not f.in_moves:  # an evasion node closed
            self._close(f)
        return x

    def _open(self, f: Frame) -> None:
        f.finder = finder_stream(self.board)
        f.walked = f.stopped = f.cut = f.in_moves = False

    def _segment(self, f: Frame, end: str) -> None:
        self.log.segments.append(Segment(f.start, f.first if f.start == ENTRY else 0,
                                         tuple(f.items), end))
        f.items = []

    def _scan_to(self, f: Frame, m: int | None) -> str:
        """Advance the finder to ``m`` (None: to its end), noting the victims passed; the
        move's source."""
        for kind, x in f.finder:
            if kind == VICTIM:
                f.items.append(VICTIM)
            elif x == m:
                return kind
            else:
                raise AssertionError(f"the finder's next move {x:#x} is not the search's {m:#x}")
        if m is not None:
            raise AssertionError(f"{m:#x} is not among the finder's moves")
        return ""

    def _close(self, f: Frame) -> None:
        """The node's stream ends: run out, or cut off by a settled child (a made child's
        cut-off ended its segment with the make)."""
        if f.cut:
            return
        if not f.walked and not f.stopped:
            self._scan_to(f, None)  # the victims after the last candidate
        self._segment(f, ENDS_STAGE2 if f.walked else ENDS_STAGE1)

    def child(self, m, alpha, beta, depth):
        f = self.frames[-1]
        board = self.board
        if f.walked or not capture_finder.is_capture_stage_move(m):
            if not f.walked:  # stage 1 ran out: a Next clock to Walk, then a new segment
                self._scan_to(f, None)
                self._segment(f, ENDS_STAGE1)
                f.walked, f.start = True, WALK
            src = STACK
        else:
            src = self._scan_to(f, m)
        query, castle = needs_query(board, m), bool(m & CASTLE)
        forced = castle or (may_give_check(board, m)
                            and matters(depth, self.extensions, self.rules))
        made = self.stats.made
        x = super().child(m, alpha, beta, depth)
        if x is None:
            f.items.append(Cand(query, castle, src, ILLEGAL, depth, forced))
            return x
        chip_made = self.stats.made != made or forced
        self.log.made += chip_made
        self.log.castles += chip_made and castle
        f.items.append(Cand(query, castle, src, MADE if chip_made else SETTLED, depth, forced))
        f.stopped = x >= beta
        if chip_made:
            self._segment(f, ENDS_MADE)
            f.start = RETURN
            f.cut = x >= beta
        return x


class RecordingLeaf:
    """A leaf searcher (host_search.LeafSearcher): the reference, recording its jobs' events."""

    def __init__(self):
        self.segments: list[Segment] = []
        self.stats = LeafStats()
        self.nodes = self.jobs = self.made = self.castles = 0

    def search(self, board, alpha, beta, depth, ply, extensions=0):
        result = Recorder(board, self).run(alpha, beta, depth, ply, extensions)
        self.stats.add(result.stats)
        self.nodes += result.nodes
        self.jobs += 1
        return result


def record(positions, depth: int, chip_depth: int) -> RecordingLeaf:
    """The host's search of ``positions`` ((name, fen) pairs) over the recording reference."""
    leaf = RecordingLeaf()
    for _, fen in positions:
        HostSearch(Board(fen), leaf, chip_depth).search(depth)
    return leaf


# --- the costs ------------------------------------------------------------------------------

def today_clocks(seg: Segment) -> tuple[int, int, int]:
    """Today's Next, Test and Judge clocks of a segment. Next: a clock per victim asked about
    and per candidate, and one to leave the stream when it runs out. Test: waits for the
    node's in-check answer (an entry's clocks count from Enter), then a clock (castling
    three). Judge: until the query's answer (QUERY after the last Test clock) when the
    legality needs one, else until the child's evaluation (CHILD_EVAL after its Next), at
    least a clock."""
    t = seg.first if seg.start == ENTRY else 0
    known = IN_CHECK_KNOWN if seg.start == ENTRY else 0
    nxt = test = judge = 0
    for it in seg.items:
        nxt += 1
        if it is VICTIM:
            t += 1
            continue
        n, t = t, t + 1
        tested = max(t, known)
        tests = CASTLE_TESTS if it.castle else 1
        test += tested - t + tests
        t = tested + tests
        if it.query or it.castle:
            decided = tested + tests - 1 + QUERY
        else:
            decided = max(n + CHILD_EVAL, tested + 1)
        judge += decided - t + 1
        t = decided + 1
    if seg.end != ENDS_MADE:
        nxt += 1
    return nxt, test, judge


def pipelined_clocks(seg: Segment, lat: Latencies = Latencies()) -> int:
    """The pipelined stream's clocks of a segment, from its first stream clock to its last
    (a made child's decision, or the stream's end); at least one."""
    entry = seg.start == ENTRY
    first, known = (seg.first, lat.known) if entry else (0, 0)
    scan = lat.rescan if seg.start == RETURN else lat.scan
    items = seg.items
    if lat.attack_map:  # a victim with no candidate after it has no aggressor: dropped
        items = [it for i, it in enumerate(items)
                 if it is not VICTIM or i + 1 < len(items) and items[i + 1] is not VICTIM]
    never = -10**9
    cand = tested = decided = never
    victims = 0
    for it in items:
        if it is VICTIM:
            victims += 1
            continue
        if it.src == PROMO:
            c = lat.promo
        elif it.src == STAGE1:
            c = scan + lat.aggressor - 1 + max(victims - 1, 0)
        else:
            c = lat.stack
        c = max(c, cand + 1)
        if not lat.streaming:
            c = max(c, decided + 1)
        t = max(c + 1, known, tested + 1)
        legal = lat.query if it.query or it.castle else 1
        if it.outcome == ILLEGAL:  # the query's answer, or (never on the chip) D's flags
            latency = lat.query if it.query or it.castle else lat.decide
        elif it.depth >= 1:  # a full-width child: nobody reads its evaluation
            latency = legal
        elif it.forced:  # made whatever its evaluation: in by its Enter
            latency = max(legal, lat.decide - MADE_AHEAD)
        else:
            latency = lat.decide
        decided = max(t + latency, decided + 1)
        cand, tested = c, t + (CASTLE_TESTS - 1 if it.castle else 0)
    if seg.end == ENDS_MADE:
        last = decided
    elif seg.end == ENDS_STAGE1:
        last = max(decided + 1, scan + victims + lat.end_scan)
    else:
        last = max(decided + 1, lat.stack + 1)
    return max(last - first + 1, 1)


def stream_per_node(segments, nodes: int, lat: Latencies = Latencies()) -> float:
    return sum(pipelined_clocks(s, lat) for s in segments) / nodes


def kind_of(seg: Segment) -> tuple[str, str, str]:
    """A segment's row of the table: its start, its candidates' source, its end."""
    srcs = {it.src for it in seg.items if it is not VICTIM}
    src = STACK if STACK in srcs else STAGE1 if srcs else ""
    return seg.start, src, seg.end


def label(kind: tuple[str, str, str]) -> str:
    start, src, end = kind
    if not src:
        return f"{start}, " + ("no move left" if end == ENDS_STAGE2 else
                               "no capture left" if start != ENTRY else "no capture")
    what = "captures" if src == STAGE1 else "stage 2"
    return f"{start}, {what}, " + ("ends in a make" if end == ENDS_MADE else "no make")


def segment_table(segments, nodes: int, lat: Latencies, rows: int = 8) -> list[dict]:
    """The segments by kind, most frequent first; the kinds after ``rows`` as one row."""
    groups = collections.defaultdict(lambda: [0, 0, 0])
    for seg in segments:
        g = groups[kind_of(seg)]
        g[0] += 1
        g[1] += sum(today_clocks(seg))
        g[2] += pipelined_clocks(seg, lat)
    ordered = sorted(groups.items(), key=lambda kv: -kv[1][0])
    out = [{"segment": label(k), "count": n, "share": n / nodes, "today": t / n,
            "pipelined": p / n, "today_per_node": t / nodes, "pipelined_per_node": p / nodes}
           for k, (n, t, p) in ordered[:rows]]
    rest = [sum(g[i] for _, g in ordered[rows:]) for i in range(3)]
    if rest[0]:
        out.append({"segment": "the rest", "count": rest[0], "share": rest[0] / nodes,
                    "today": None, "pipelined": None, "today_per_node": rest[1] / nodes,
                    "pipelined_per_node": rest[2] / nodes})
    return out


# --- the kept states ------------------------------------------------------------------------

def parse_states(text: str) -> dict[str, float]:
    """``Judge 5.45, Next 4.91, ...`` (bench/search_chip.py's line, its label optional) as
    clocks per node by state."""
    text = text.split(":", 1)[-1]
    out = {}
    for part in text.split(","):
        if part.strip():
            name, value = part.split()
            out[name] = float(value)
    return out


def measured_run(path: Path = MEASUREMENTS) -> dict | None:
    """docs/measurements.json's "search-chip" run, or None."""
    try:
        return json.loads(path.read_text())["runs"].get("search-chip")
    except (OSError, KeyError, ValueError):
        return None


def states_of_run(run: dict | None) -> dict[str, float] | None:
    """A search-chip run's clocks per node by state (its ``clocks_by_state`` over its chip
    nodes), None if it has none."""
    if not run or not run["results"].get("clocks_by_state"):
        return None
    r = run["results"]
    nodes = sum(row["chip_nodes"] for row in r["rows"])
    return {k: v / nodes for k, v in r["clocks_by_state"].items()}


def load_per_node(run: dict | None) -> float | None:
    """A job's load and start, in clocks per node (with_load - clocks_per_node), measured."""
    if not run:
        return None
    r = run["results"]
    return r["with_load"] - r["clocks_per_node"]


def check_estimate(estimate: float, measured: float, tolerance: float = TOLERANCE) -> bool:
    """Is the built thread's measured clocks per node within ``tolerance`` of the estimate
    (bench/search_chip.py's "(+26%)": measured / estimate - 1)?"""
    return abs(measured - estimate) <= tolerance * estimate


# --- the bench ------------------------------------------------------------------------------

def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--depth", type=int, default=4)
    p.add_argument("--chip-depth", type=int, default=2)
    p.add_argument("--positions", nargs="+", metavar="NAME",
                   help="some of bench/search.py's positions (default: all eight; the kept "
                        "states stay the whole tree's)")
    p.add_argument("--states", metavar="TEXT",
                   help="today's clocks per node by state, bench/search_chip.py's line "
                        "(default: docs/measurements.json's search-chip run, if it has them)")
    p.add_argument("--measured", type=float, metavar="C",
                   help="the built pipelined thread's clocks per node (whole tree, without "
                        "the load): it must lie within 25 %% of the estimate")
    add_json_option(p)
    args = p.parse_args(argv)
    positions = POSITIONS
    if args.positions:
        names = dict(POSITIONS)
        unknown = [n for n in args.positions if n not in names]
        if unknown:
            p.error(f"unknown positions {unknown}; bench/search.py has {list(names)}")
        positions = [(n, names[n]) for n in args.positions]

    t0 = time.perf_counter()
    leaf = record(positions, args.depth, args.chip_depth)
    seconds = time.perf_counter() - t0
    segs, n = leaf.segments, leaf.nodes
    print(f"the tree: host depth {args.depth}, chip depth {args.chip_depth}, "
          f"{len(positions)} positions: {n:,} nodes in {leaf.jobs:,} jobs, {len(segs):,} "
          f"segments, {leaf.made:,} children made, {leaf.stats.walks:,} walks "
          f"(recorded in {seconds:.0f} s)")

    # today's rules against today's measured clocks
    run = measured_run()
    if args.states:
        states, source = parse_states(args.states), "--states"
    else:
        states = states_of_run(run)
        source = f"docs/measurements.json, search-chip at {run['commit']}" if states else None
    today = [0, 0, 0]
    for seg in segs:
        for i, c in enumerate(today_clocks(seg)):
            today[i] += c
    modelled = dict(zip(STREAM_STATES, (c / n for c in today)))
    print("\ntoday's rules, clocks per node (model" + (f" | measured, {source})" if states
                                                       else ")") + ":")
    measured = {**states, "stream": sum(states.get(k, 0.0) for k in STREAM_STATES)} \
        if states else {}
    print("  " + "  ".join(
        f"{k} {v:.2f}" + (f" | {measured.get(k, 0):.2f}" if states else "")
        for k, v in [*modelled.items(), ("stream", sum(modelled.values()))]))

    lat = Latencies()
    print("\npipelined latencies (clocks): " + ", ".join(
        f"{k} {v}" for k, v in asdict(lat).items() if not isinstance(v, bool)))
    print(f"  first capture candidate registered: Enter + {lat.scan + lat.aggressor - 1}, "
          f"Return + {lat.rescan + lat.aggressor}; first decided at Enter + "
          f"{lat.scan + lat.aggressor + lat.decide}")
    table = segment_table(segs, n, lat)
    stream = sum(r["pipelined_per_node"] for r in table)
    print(f"\n{'segment':<38} {'share':>6} {'today':>7} {'pipelined':>9} {'today':>7} "
          f"{'pipelined':>9}")
    print(f"{'':<38} {'/node':>6} {'/seg.':>7} {'/seg.':>9} {'/node':>7} {'/node':>9}")
    for r in table:
        per_seg = (f"{r['today']:>7.2f} {r['pipelined']:>9.2f}" if r["today"] is not None
                   else f"{'':>7} {'':>9}")
        print(f"{r['segment']:<38} {r['share']:>6.3f} {per_seg} {r['today_per_node']:>7.2f} "
              f"{r['pipelined_per_node']:>9.2f}")
    print(f"{'stream':<38} {'':>6} {'':>7} {'':>9} {sum(today) / n:>7.2f} {stream:>9.2f}")

    variants = {}
    for step in (1, -1):
        variants[f"all {step:+d}"] = stream_per_node(
            segs, n, replace(lat, **{k: getattr(lat, k) + step for k in SENSITIVE}))
    for k in SENSITIVE:
        variants[k] = stream_per_node(segs, n, replace(lat, **{k: getattr(lat, k) + 1}))
    variants["no attack map"] = stream_per_node(
        segs, n, replace(lat, attack_map=False, scan=lat.scan - 2))  # no M1, M2
    variants["no streaming"] = stream_per_node(segs, n, replace(lat, streaming=False))

    result = {"depth": args.depth, "chip_depth": args.chip_depth,
              "positions": [name for name, _ in positions], "nodes": n, "jobs": leaf.jobs,
              "segments": len(segs), "made": leaf.made, "walks": leaf.stats.walks,
              "castling_children": leaf.castles, "seconds": round(seconds, 1),
              "today_model": {k: round(v, 4) for k, v in modelled.items()},
              "latencies": asdict(lat), "stream": round(stream, 4),
              "table": [{k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()}
                        for r in table],
              "variants": {k: round(v, 4) for k, v in variants.items()},
              "states": states, "states_from": source}

    ok = True
    if states is None:
        print("\nkept: no clocks by state (docs/measurements.json's search-chip run has none): "
              "pass --states with bench/search_chip.py's line \"clocks per node by state\"")
        print("stream per clock: " + ", ".join(
            f"{k} {round(variants[k] - stream, 2) + 0:+.2f}" for k in SENSITIVE))
    else:
        kept_states = {k: v for k, v in states.items() if k not in STREAM_STATES}
        own = leaf.jobs + leaf.castles
        walks = WALK_EXTRA * leaf.stats.walks / n
        evals = OWN_EVAL_EXTRA * own / n
        kept = sum(kept_states.values()) + walks + evals
        load = load_per_node(run)
        print("\nkept:    " + " + ".join(f"{k} {v:.2f}" for k, v in kept_states.items() if v)
              + f" = {sum(kept_states.values()):.2f}")
        print(f"         + a clock per walk ({leaf.stats.walks:,} walks / {n:,} nodes) "
              f"+ {walks:.2f}")
        print(f"         + {OWN_EVAL_EXTRA} clocks per own evaluation ({own:,}: {leaf.jobs:,} "
              f"job roots, {leaf.castles:,} castling children) + {evals:.2f}")
        print(f"         kept = {kept:.2f}")

        def total(s):
            return f"{kept + s:.1f}" + (f" ({kept + s + load:.1f} with the loads)"
                                        if load is not None else "")

        estimate = kept + stream
        print(f"\nestimate: {kept:.2f} + {stream:.2f} = {total(stream)} clocks per node"
              + (f"; the loads {load:.2f} a node as measured today" if load is not None else ""))
        print(f"each latency one clock longer: {variants['all +1']:.2f} -> "
              f"{total(variants['all +1'])}; one shorter: {variants['all -1']:.2f} -> "
              f"{total(variants['all -1'])}")
        print("per clock: " + ", ".join(
            f"{k} {round(variants[k] - stream, 2) + 0:+.2f}"
            for k in sorted(SENSITIVE, key=lambda k: stream - variants[k])))
        print(f"without the attack map (every victim scanned, a clock each): "
              f"{variants['no attack map']:.2f} -> {total(variants['no attack map'])}")
        print(f"without streaming (the stages above, one move at a time): "
              f"{variants['no streaming']:.2f} -> {total(variants['no streaming'])}")
        result.update(kept=round(kept, 4), own_evaluations=own, estimate=round(estimate, 4),
                      load_per_node=None if load is None else round(load, 4),
                      with_load=None if load is None else round(estimate + load, 4))
        if args.measured is not None:
            ok = check_estimate(estimate, args.measured)
            print(f"\nmeasured: {args.measured:.2f} clocks per node, the estimate "
                  f"{estimate:.2f} ({args.measured / estimate - 1:+.0%}): "
                  + ("within" if ok else "outside") + f" {TOLERANCE:.0%}")
            result.update(measured=args.measured, within_tolerance=ok)
    if args.measured is not None and states is None:
        print("\n--measured: no estimate to check without the kept states (--states)")
        ok = False
    write_json(args.json, result)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
