"""The pipelined evaluation (hdl/search/eval_pipe.py) against the reference: leaf_eval.eval_after
of the parent's sums and the move, plus leaf_structure's terms of the child (with no move, the
position's own evaluation), over the bench positions, seeded random playouts and positions rich
in the structure terms; every legal move but castling (``ChildEval`` does not cover it: there
the two gateware units are held to each other), and the null question. One case a clock, back
to back, beside ``ChildEval`` in the same simulation: each score read exactly ``LATENCY`` clocks
after its inputs (``ChildEval``'s its own ``LATENCY``), each verdict ``VERDICT_LATENCY`` clocks
after them, against a window set in E6's clock."""

import random
from dataclasses import dataclass, field

import pytest
from amaranth import Elaboratable, Module
from amaranth.sim import Simulator

import posdata.hdl.search.evaluator as evaluator
from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import BISHOP, BLACK, CASTLE, EMPTY, EP, PROMOTION, WHITE
from posdata.engine.search.leaf_eval import EvalSums, eval_after, leaf_evaluate, pst_words
from posdata.engine.search.leaf_structure import Planes, structure_of
from posdata.hdl.search import child_eval
from posdata.hdl.search.child_eval import ChildEval
from posdata.hdl.search.eval_pipe import LATENCY, VERDICT_LATENCY, EvalPipe
from tests.hw_positions import EXTRA_STARTS, random_positions
from tests.scripts import BENCH, load_script

from .guard import run_guarded
from .planes import planes_of
from .test_structure import rich_positions


@dataclass
class Case:
    what: str
    inputs: dict        #: the ports' values (both units')
    want: int | None    #: the reference's score (None: castling, the units held to each other)
    window: tuple       #: (neg_alpha, neg_beta)


def clamp(x, lo, hi):
    return lo if x < lo else hi if x > hi else x


def reference(board, m) -> int:
    """The child's score for its side to move, as the leaf search evaluates it."""
    if m is None:
        return leaf_evaluate(board) + structure_of(board)
    e = eval_after(board, EvalSums.of(board), m)
    assert board.makemove(m)
    e += structure_of(board)
    board.takeback()
    return e


def board_cases(board, rng, moves=None) -> list[Case]:
    """The position's own score (null, junk on the move's ports) and per legal move (or
    ``moves`` of them drawn, and every castling, en passant and promotion) its child's."""
    sums, planes = EvalSums.of(board), Planes.of(board)
    bishops = [sum(board.color[sq] == c and board.piece[sq] == BISHOP for sq in range(64))
               for c in (WHITE, BLACK)]
    parent = {"pst": sums.pst, "weights": planes.weights, "bishops": bishops,
              "planes": planes_of(board), "kings": tuple(board.king), "side": board.side}
    legal = board.legal_moves()
    if moves is not None:
        rare = [m for m in legal if m & (CASTLE | EP | PROMOTION)]
        others = [m for m in legal if not m & (CASTLE | EP | PROMOTION)]
        legal = rare + rng.sample(others, min(moves, len(others)))
    fen = board.fen()
    cases = []
    for m in [None, *legal]:
        move = rng.choice(legal or [0]) if m is None else m
        frm, to = move & 63, (move >> 6) & 63
        want = None if m is not None and m & CASTLE else reference(board, m)
        inputs = dict(parent, move=move, null=m is None, mover=board.piece[frm],
                      captured=board.piece[to] if board.color[to] != EMPTY else 0)
        # the window near the score on either side, or anywhere
        base = want if want is not None else rng.randrange(-500, 500)
        neg_alpha = base + rng.choice((-1, 0, 1, rng.randrange(-300, 300)))
        neg_beta = neg_alpha - rng.choice((0, 1, 2, rng.randrange(300)))
        what = f"{fen} " + ("as it stands" if m is None else f"after {board.uci(m)}")
        cases.append(Case(what, inputs, want, (neg_alpha, neg_beta)))
    return cases


def all_cases(seed=39) -> list[Case]:
    rng = random.Random(seed)
    bench = [fen for _, fen in load_script(BENCH / "search.py").POSITIONS]
    cases = []
    for fen in bench + list(EXTRA_STARTS):
        cases += board_cases(Board(fen), rng)
    for fen in random_positions(40, seed=seed) + rich_positions(40, seed=seed):
        cases += board_cases(Board(fen), rng, moves=10)
    return cases


class Both(Elaboratable):
    """The pipeline and ``ChildEval``, one set of inputs."""

    def __init__(self):
        self.pipe, self.child = EvalPipe(), ChildEval()

    def elaborate(self, platform):
        m = Module()
        m.submodules.pipe, m.submodules.child = pipe, child = self.pipe, self.child
        for name in ("sums", "kings", "side", "mover", "captured"):
            m.d.comb += getattr(child, name).eq(getattr(pipe, name))
        for name in ("occupied", "black", "orth", "diag", "knight", "pawn", "king"):
            m.d.comb += getattr(child.planes, name).eq(getattr(pipe.planes, name))
        m.d.comb += [child.ask.move.eq(pipe.move), child.ask.null.eq(pipe.null)]
        return m


@dataclass
class Outcome:
    mismatches: list = field(default_factory=list)  #: (what, port, got, want)
    checked: int = 0
    finished: bool = False


def run(cases) -> Outcome:
    dut = Both()
    pipe = dut.pipe
    outcome = Outcome()

    def feed(ctx, inputs):
        p = pipe
        ctx.set(p.sums.pst, inputs["pst"])
        for c in (WHITE, BLACK):
            ctx.set(p.sums.weights[c], inputs["weights"][c])
            ctx.set(p.sums.bishops[c], inputs["bishops"][c])
            ctx.set(p.kings[c], inputs["kings"][c])
            ctx.set(p.planes.king[c], inputs["kings"][c])
        for name, value in inputs["planes"].items():
            ctx.set(getattr(p.planes, name), value)
        ctx.set(p.side, inputs["side"])
        ctx.set(p.move.as_value(), inputs["move"])  # the engine's packed move is the layout
        ctx.set(p.null, inputs["null"])
        ctx.set(p.mover, inputs["mover"])
        ctx.set(p.captured, inputs["captured"])

    def check(what, port, got, want):
        if got != want:
            outcome.mismatches.append((what, port, got, want))
        outcome.checked += 1

    async def bench(ctx):
        child_scores = {}
        for clock in range(len(cases) + VERDICT_LATENCY):
            feed(ctx, cases[clock % len(cases)].inputs)  # after the last: the first again
            if LATENCY <= clock < len(cases) + LATENCY:
                case = cases[clock - LATENCY]
                ctx.set(pipe.window.neg_alpha, case.window[0])  # read in E6's clock
                ctx.set(pipe.window.neg_beta, case.window[1])
            if child_eval.LATENCY <= clock < len(cases) + child_eval.LATENCY:
                child_scores[clock - child_eval.LATENCY] = ctx.get(dut.child.ask.score)
            if LATENCY <= clock < len(cases) + LATENCY:
                i = clock - LATENCY
                case, got = cases[i], ctx.get(pipe.score)
                want = case.want if case.want is not None else child_scores[i]
                check(case.what, "score", got, want)
                check(case.what, "ChildEval's score", child_scores[i], want)
            if clock >= VERDICT_LATENCY:
                case = cases[clock - VERDICT_LATENCY]
                want = case.want if case.want is not None else child_scores[
                    clock - VERDICT_LATENCY]
                neg_alpha, neg_beta = case.window
                check(case.what, "stands", ctx.get(pipe.verdict.stands), int(want >= neg_alpha))
                check(case.what, "clamped", ctx.get(pipe.verdict.clamped),
                      clamp(want, neg_beta, neg_alpha))
            await ctx.tick()
        outcome.finished = True

    sim = Simulator(dut)
    sim.add_testbench(bench)
    run_guarded(sim, len(cases) + 100)
    return outcome


@pytest.fixture(scope="module")
def cases():
    return all_cases()


def describe(mismatches) -> str:
    return "\n".join(f"{what}: {port} {got}, want {want}"
                     for what, port, got, want in mismatches[:8])


def test_scores_and_verdicts_match_the_reference(cases):
    outcome = run(cases)
    assert outcome.finished, "the testbench did not finish (hung?)"
    assert outcome.checked == 4 * len(cases)
    assert not outcome.mismatches, describe(outcome.mismatches)
    kinds = {"null": sum(c.inputs["null"] for c in cases),
             "captures": sum(not c.inputs["null"] and c.inputs["captured"] != 0 for c in cases),
             "en passant": sum(not c.inputs["null"] and bool(c.inputs["move"] & EP)
                               for c in cases),
             "promotions": sum(not c.inputs["null"] and bool(c.inputs["move"] & PROMOTION)
                               for c in cases),
             "castling": sum(c.want is None for c in cases),
             "stands": sum(c.want is not None and c.want >= c.window[0] for c in cases),
             "falls": sum(c.want is not None and c.want < c.window[0] for c in cases)}
    assert all(n >= 10 for n in kinds.values()), kinds
    assert len(cases) >= 1000, len(cases)


def test_neighbours_differ(cases):
    """A score a clock early or late would read its neighbour's: how many neighbours differ,
    so that the exact latency above has teeth."""
    differ = sum(a.want != b.want for a, b in zip(cases, cases[1:]))
    assert differ >= 0.8 * len(cases), differ


def test_a_wrong_piece_square_word_is_caught(cases, monkeypatch):
    """One word of the ROM image wrong (a white knight on f3): the pipeline's score differs
    from the reference's where it is read (the image is ``evaluator.pst_words``)."""
    words = pst_words()
    words[(WHITE << 3 | 2) << 6 | 21] += 1
    monkeypatch.setattr(evaluator, "pst_words", lambda: words)
    outcome = run(cases[:300])
    assert any(port == "score" for _, port, _, _ in outcome.mismatches), outcome.mismatches[:3]
