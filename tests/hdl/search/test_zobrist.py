"""The hash keeper (hdl/search/zobrist.py) against the engine's own hash: seeded random games on
engine boards, each move's square writes (engine.search.leaf_eval.move_writes, make's order) fed one
a clock, then the position; the keeper's hash must be ``board.hash & HASH_MASK`` LAG clocks after
the last write. Unmaking (the writes reversed, old and new swapped) must give the parent's hash
back; a load of 64 squares (a1 first, restarting) must give the loaded position's hash whatever the
keeper held, even with a move's writes still in its pipeline. Planted faults (one key wrong) are
caught."""

import random
from collections import Counter
from dataclasses import dataclass, field

import pytest
from amaranth.sim import Simulator

import posdata.hdl.search.zobrist as zobrist
from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import (
    BLACK,
    CAPTURE,
    CASTLE,
    DOUBLE,
    EMPTY,
    EP,
    KING,
    NO_PIECE,
    PROMOTION,
    QUEEN,
    ROOK,
    WHITE,
    parse_square,
)
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.engine.search.hash_keys import ep_key_index
from posdata.engine.search.leaf_eval import move_writes, pst_address
from posdata.engine.search.leaf_search import HASH_BITS, HASH_MASK
from posdata.hdl.common.contract import position_fields
from posdata.hdl.search.zobrist import LAG, HashKeeper
from tests.hw_positions import EXTRA_STARTS, random_positions

from .guard import run_guarded

NOTHING = (EMPTY, NO_PIECE)
DEADLINE = 40_000  #: clocks: a testbench still running then has hung (the run ends, the test fails)
STARTS = [STANDARD_POSITIONS[0].fen, *EXTRA_STARTS]


@dataclass
class Outcome:
    mismatches: list = field(default_factory=list)  #: (what, got, want)
    census: Counter = field(default_factory=Counter)
    finished: bool = False


class Driver:
    """The keeper's ports from a testbench: square writes one a clock, junk on the ports while
    ``en`` is low, the position, the hash read LAG clocks after the last write."""

    def __init__(self, ctx, dut, rng, outcome, stop_at_first):
        self.ctx, self.dut, self.rng, self.outcome = ctx, dut, rng, outcome
        self.stop_at_first = stop_at_first

    async def write(self, sq, old, new, restart=False):
        ctx, dut = self.ctx, self.dut
        ctx.set(dut.en, 1)
        ctx.set(dut.sq, sq)
        ctx.set(dut.old, {"color": old[0], "piece": old[1]})
        ctx.set(dut.new, {"color": new[0], "piece": new[1]})
        ctx.set(dut.restart, restart)
        await ctx.tick()

    async def writes(self, writes):
        for sq, old, new in writes:
            await self.write(sq, old, new)
            if self.rng.random() < 0.15:  # a gap: the next write a clock or two later
                await self.idle(self.rng.randint(1, 2))

    async def idle(self, clocks):
        """``clocks`` clocks without a write, random junk on the other write ports."""
        ctx, dut, rng = self.ctx, self.dut, self.rng
        for _ in range(clocks):
            ctx.set(dut.en, 0)
            ctx.set(dut.sq, rng.randrange(64))
            ctx.set(dut.old, {"color": rng.randrange(3), "piece": rng.randrange(8)})
            ctx.set(dut.new, {"color": rng.randrange(3), "piece": rng.randrange(8)})
            ctx.set(dut.restart, rng.randrange(2))
            await ctx.tick()

    async def load(self, board):
        """The host's load: 64 squares a1 first, the first restarting, old given as EMPTY (as
        the thread gives it during a load)."""
        for sq in range(64):
            await self.write(sq, NOTHING, (board.color[sq], board.piece[sq]), restart=sq == 0)
        self.position(board)

    def position(self, board):
        self.ctx.set(self.dut.position, position_fields(board))

    async def check(self, what, want):
        """The hash LAG clocks after the last write (the write's own clock counts)."""
        await self.idle(LAG - 1)
        got = self.ctx.get(self.dut.hash)
        if got != want & HASH_MASK:
            self.outcome.mismatches.append((what, got, want & HASH_MASK))
        return not (self.stop_at_first and self.outcome.mismatches)


def pick(rng, legal):
    """A random legal move, the rarer kinds weighted up."""
    weights = [20 if m & (CASTLE | EP) else 10 if m & PROMOTION else 4 if m & (CAPTURE | DOUBLE)
               else 1 for m in legal]
    return rng.choices(legal, weights)[0]


def tally(census, board, m):
    census["moves"] += 1
    census["black moves"] += board.side == BLACK
    for flag, name in ((CASTLE, "castle"), (EP, "en passant"), (PROMOTION, "promotion"),
                       (CAPTURE, "capture")):
        census[name] += bool(m & flag)
    census["under-promotion"] += bool(m & PROMOTION) and m >> 18 != QUEEN
    census["capture-promotion"] += bool(m & PROMOTION) and bool(m & CAPTURE)


def play(seed=7, games=8, plies=40, stop_at_first=False) -> Outcome:
    """Seeded random games through a fresh keeper; the mismatches and what the games covered."""
    dut = HashKeeper()
    outcome = Outcome()
    rng = random.Random(seed)
    others = random_positions(6, seed=seed)

    async def bench(ctx):
        d = Driver(ctx, dut, rng, outcome, stop_at_first)
        await d.idle(3)
        for game in range(games):
            board = Board(STARTS[game % len(STARTS)])
            await d.load(board)  # over the last game's position
            outcome.census["loads"] += 1
            if not await d.check(f"game {game}: load of {board.fen()}", board.hash):
                return
            for _ in range(plies):
                legal = board.legal_moves()
                if not legal:
                    break
                if not await one_move(d, board, pick(rng, legal), game, others):
                    return
        outcome.finished = True

    async def one_move(d, board, m, game, others):
        census = outcome.census
        writes = move_writes(board, m)
        parent, parent_fields, rights = board.hash, position_fields(board), board.castle
        where = f"game {game}: {board.uci(m)} in {board.fen()}"
        tally(census, board, m)
        await d.writes(writes)
        board.makemove(m)
        census["rights lost"] += board.castle != rights
        census["ep square set"] += board.ep >= 0
        d.position(board)
        if not await d.check(f"{where}: made", board.hash):
            return False
        if rng.random() < 0.5:  # unmake: the writes reversed, old and new swapped; then again
            census["unmakes"] += 1
            await d.writes([(sq, new, old) for sq, old, new in reversed(writes)])
            d.ctx.set(d.dut.position, parent_fields)
            if not await d.check(f"{where}: unmade", parent):
                return False
            await d.writes(writes)
            d.position(board)
            if not await d.check(f"{where}: made again", board.hash):
                return False
        if rng.random() < 0.08:
            # a load straight after a move's writes (still in the pipeline): another position,
            # then the game's back
            census["loads mid-game"] += 1
            legal = board.legal_moves()
            if legal:
                await d.writes(move_writes(board, rng.choice(legal)))
            other = Board(rng.choice(others))
            await d.load(other)
            if not await d.check(f"{where}: load of {other.fen()}", other.hash):
                return False
            await d.load(board)
            if not await d.check(f"{where}: load back", board.hash):
                return False
        return True

    sim = Simulator(dut)
    sim.add_testbench(bench)
    run_guarded(sim, DEADLINE)
    return outcome


def test_the_hash_follows_make_unmake_and_loads():
    outcome = play()
    assert outcome.finished, "the testbench did not finish (hung?)"
    assert not outcome.mismatches, outcome.mismatches[:5]
    census = outcome.census
    for kind in ("castle", "en passant", "promotion", "under-promotion", "capture",
                 "capture-promotion", "rights lost", "ep square set", "black moves", "unmakes",
                 "loads mid-game"):
        assert census[kind] >= 3, (kind, census)
    assert census["moves"] >= 250 and census["loads"] == 8, census


def faulty(words, index, bit):
    """``words`` with one bit of one word flipped."""
    def image():
        out = list(words())
        out[index] ^= 1 << bit
        return out
    return image


def test_lag_is_the_first_clock():
    """A write shows in ``hash`` LAG clocks after its own, not a clock sooner."""
    dut = HashKeeper()
    board = Board()
    seen = []

    async def bench(ctx):
        d = Driver(ctx, dut, random.Random(1), Outcome(), False)
        await d.load(board)
        await d.idle(LAG)
        before = ctx.get(dut.hash)
        await d.write(parse_square("e4"), NOTHING, (WHITE, QUEEN))
        for _ in range(LAG):
            seen.append(ctx.get(dut.hash))
            await d.idle(1)
        seen.append(ctx.get(dut.hash))
        seen.insert(0, before)

    sim = Simulator(dut)
    sim.add_testbench(bench)
    run_guarded(sim, 1000)
    assert len(seen) == LAG + 2, "the testbench did not finish"
    # seen[k]: k clocks after the write's own clock (seen[0]: before it)
    assert seen[LAG - 1] == seen[0] != seen[LAG]


@pytest.mark.parametrize("table, index, bit, caught_at", [
    # a piece key every load of the start position uses, its top kept bit
    ("hash_key_words", pst_address(WHITE, ROOK, parse_square("a1")), HASH_BITS - 1, "load"),
    # a piece key no loaded position holds, only moves reach (in these games): a black king f7
    ("hash_key_words", pst_address(BLACK, KING, parse_square("f7")), 0, "made"),
    ("castle_key_words", 0b1111, 17, ""),
    # the en passant square c6 (EXTRA_STARTS[0] starts with it)
    ("ep_key_words", ep_key_index(parse_square("c6")), 3, ""),
])
def test_a_wrong_key_is_caught(monkeypatch, table, index, bit, caught_at):
    monkeypatch.setattr(zobrist, table, faulty(getattr(zobrist, table), index, bit))
    outcome = play(stop_at_first=True)
    assert outcome.mismatches, f"{table}[{index}] bit {bit} wrong, and no test noticed"
    assert caught_at in outcome.mismatches[0][0], outcome.mismatches[0]


def test_a_wrong_side_key_is_caught(monkeypatch):
    key = zobrist.side_key_word()
    monkeypatch.setattr(zobrist, "side_key_word", lambda: key ^ 1 << 5)
    outcome = play(stop_at_first=True)
    assert outcome.mismatches and "made" in outcome.mismatches[0][0], outcome.mismatches[:1]
