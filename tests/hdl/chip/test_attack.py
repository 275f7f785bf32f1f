"""The attack unit (hdl.chip.attack) against the reference's SqAtakd (engine.rules.board.attacked)
on the board after a move's changes, in Amaranth's simulator: random squares, attackers and changes
on seeded random positions, and the cases a legality unit gets wrong first. The same on nightrider
boards (the unit with its nightrider rays, against the variant's ``attacked_by_kinds``): random
boards crowded with nightriders, playouts from the variant's sample positions, and rays that a piece
blocks, a move opens or closes, or that leave the board."""

import random

import pytest
from amaranth.sim import Simulator

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import BLACK, EMPTY, KING, NO_PIECE, PAWN, WHITE, parse_square
from posdata.engine.rules.fen import FenError
from posdata.engine.rules.pieces import AttackKind
from posdata.engine.rules.variants import get_variant
from posdata.hdl.chip.attack import LATENCY, NIGHTRIDER_REACH, OPTIONAL_PLANES, AttackUnit
from posdata.sim.runs.variant_positions import sample_positions
from tests.hw_positions import random_positions

S = parse_square

#: attacker plane -> the attack kind whose pieces it holds (the variant's own definitions)
PLANE_KIND = {"orth": AttackKind.ORTHOGONAL_RIDER, "diag": AttackKind.DIAGONAL_RIDER,
              "knight": AttackKind.KNIGHT_LEAPER, "nightrider": AttackKind.KNIGHT_RIDER,
              "ferz": AttackKind.FERZ_STEP, "wazir": AttackKind.WAZIR_STEP,
              "alfil": AttackKind.ALFIL_LEAPER, "dabbaba": AttackKind.DABBABA_LEAPER,
              "fwazir": AttackKind.FORWARD_WAZIR, "hop_orth": AttackKind.HOP_ORTHOGONAL,
              "hop_diag": AttackKind.HOP_DIAGONAL}
#: the variants whose pieces walk with modes, each with the optional planes of its own kinds
WALKED_VARIANTS = ("grasshopper", "hoppelpoppel", "berolina", "shatranj", "makruk",
                   "pawnsideways")


def optional_of(variant) -> tuple[str, ...]:
    """The optional planes ``variant``'s pieces attack from, by their attack kinds."""
    v = get_variant(variant)
    kinds = AttackKind(0)
    for p in v.pieces:
        kinds |= v.attack_kinds(WHITE, p.code)
    return tuple(name for name, k in PLANE_KIND.items() if name in OPTIONAL_PLANES and kinds & k)


def planes_of(board) -> dict[str, int]:
    variant = board.variant
    optional = optional_of(variant)

    def plane(pred):
        return sum(1 << sq for sq in range(64) if board.color[sq] != EMPTY and pred(sq))

    def kind(sq):
        return variant.attack_kinds(board.color[sq], board.piece[sq])
    # a pawn's plane: pawns capturing as pawns do (a berolina pawn's is the forward wazir's)
    planes = {"occupied": plane(lambda sq: True),
              "black": plane(lambda sq: board.color[sq] == BLACK),
              "pawn": plane(lambda sq: board.piece[sq] == PAWN and kind(sq) == AttackKind.PAWN)}
    for name, k in PLANE_KIND.items():
        if name not in OPTIONAL_PLANES or name in optional:
            planes[name] = plane(lambda sq: board.piece[sq] != PAWN and bool(kind(sq) & k)
                                 or board.piece[sq] == PAWN and name == "fwazir"
                                 and bool(kind(sq) & k))
    return planes


def reference(board, sq, by, clr, put, epc) -> bool:
    """SqAtakd on a copy of the board with the changes made: ``put`` gets a piece of the side
    that does not attack (a pawn: it blocks and attacks nothing of its own side)."""
    saved = board.color, board.piece
    color, piece = list(board.color), list(board.piece)
    for s in (clr, epc):
        if s is not None:
            color[s], piece[s] = EMPTY, NO_PIECE
    if put is not None:
        color[put], piece[put] = by ^ 1, PAWN
    board.color, board.piece = color, piece
    try:
        return board.attacked(sq, by)
    finally:
        board.color, board.piece = saved


def run_queries(cases, variant="chess"):
    """cases: (fen, sq, by, clr, put, epc); returns the unit's answers, one query per clock."""
    dut = AttackUnit(tag_shape=16, optional=optional_of(variant))
    answers = {}

    async def bench(ctx):
        for i, (fen, sq, by, clr, put, epc) in enumerate(cases):
            board = Board(fen, variant, check_material=False)
            for name, value in planes_of(board).items():
                ctx.set(getattr(dut.planes, name), value)
            ctx.set(dut.planes.king, list(board.king))
            query = {"sq": sq, "by": by,
                     "clr": clr or 0, "clr_valid": clr is not None,
                     "put": put or 0, "put_valid": put is not None,
                     "epc": epc or 0, "epc_valid": epc is not None}
            ctx.set(dut.query.payload, {"query": query, "tag": i})
            ctx.set(dut.query.valid, 1)
            await ctx.tick()
            ctx.set(dut.query.valid, 0)
            for _ in range(LATENCY - 1):  # the planes must hold while the query is in flight
                await ctx.tick()
            assert ctx.get(dut.result.valid) and ctx.get(dut.result.payload.tag) == i
            answers[i] = bool(ctx.get(dut.result.payload.attacked))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return [answers[i] for i in range(len(cases))]


def check(cases, variant="chess"):
    got = run_queries(cases, variant)
    wrong = [(case, g) for case, g in zip(cases, got)
             if g != reference(Board(case[0], variant, check_material=False), *case[1:])]
    assert not wrong, "\n".join(f"{c}: unit says {g}" for c, g in wrong[:10])


def random_cases(count, seed, fens=None, variant="chess"):
    rng = random.Random(seed)
    cases = []
    fens = fens or random_positions(count // 10, seed=seed)
    while len(cases) < count:
        fen = rng.choice(fens)
        board = Board(fen, variant, check_material=False)
        sq, by = rng.randrange(64), rng.randrange(2)
        clr, put, epc = (rng.choice([None, rng.randrange(64)]) for _ in range(3))
        if put is not None and put in (clr, epc):
            put = None
        # the tested square is the king's or a move's target; the changes never remove the
        # attacking king (a move never takes a king)
        if sq in (clr, put) or board.king[by] in (clr, put, epc):
            continue
        cases.append((fen, sq, by, clr, put, epc))
    return cases


def test_random_queries():
    check(random_cases(800, seed=11))


def crowded_boards(variant, count, seed, crowd):
    """Random boards (not reached by play) with two to eight of the piece ``crowd`` (a letter)
    among other pieces, so that its lines and leaps are often blocked, by either colour, at each
    of their squares."""
    rng = random.Random(seed)
    variant = get_variant(variant)
    others = [p.letter for p in variant.pieces if p.code not in (PAWN, KING)]
    fens = []
    while len(fens) < count:
        squares = rng.sample(range(64), 2 + rng.randint(6, 24))
        board = [None] * 64
        board[squares[0]], board[squares[1]] = "K", "k"
        for i, sq in enumerate(squares[2:]):
            letter = crowd if i < rng.randint(2, 8) else rng.choice(others + ["p"])
            if letter == "p" and sq // 8 in (0, 7):
                letter = others[0]
            board[sq] = letter.upper() if rng.random() < 0.5 else letter
        ranks = []
        for r in range(7, -1, -1):
            row, empty = "", 0
            for f in range(8):
                if board[r * 8 + f] is None:
                    empty += 1
                    continue
                row += (str(empty) if empty else "") + board[r * 8 + f]
                empty = 0
            ranks.append(row + (str(empty) if empty else ""))
        fen = "/".join(ranks) + f" {rng.choice('wb')} - - 0 1"
        try:
            Board(fen, variant, check_material=False)
        except FenError:  # the side not to move in check: not a position
            continue
        fens.append(fen)
    return fens


def playouts(variant, count, seed):
    """FENs from seeded random games from the variant's sample positions."""
    rng = random.Random(seed)
    fens = []
    while len(fens) < count:
        board = Board(rng.choice(sample_positions(variant)), variant)
        for _ in range(rng.randint(0, 30)):
            legal = board.legal_moves()
            if not legal:
                break
            board.makemove(rng.choice(legal))
        fens.append(board.fen())
    return fens


def test_random_nightrider_queries():
    fens = crowded_boards("nightrider", 60, seed=5, crowd="n") + playouts("nightrider", 20, seed=6)
    check(random_cases(800, seed=12, fens=fens, variant="nightrider"), "nightrider")


def test_nightrider_reach():
    assert NIGHTRIDER_REACH == 3  # a1-b3-c5-d7: what the unit's rays must cover on 8x8


@pytest.mark.parametrize("case", [
    # a nightrider three leaps away (d7-c5-b3-a1) on an open ray attacks
    ("7k/3n4/8/8/8/8/8/K7 w - - 0 1", S("a1"), BLACK, None, None, None, True),
    # ... a piece on the middle square blocks it; taking that piece off opens the ray
    ("7k/3n4/8/2B5/8/8/8/K7 w - - 0 1", S("a1"), BLACK, None, None, None, False),
    ("7k/3n4/8/2B5/8/8/8/K7 w - - 0 1", S("a1"), BLACK, S("c5"), S("d6"), None, True),
    # a move onto the ray closes it; a piece on the square between the leaps does not block
    ("7k/3n4/8/8/8/8/8/K1R5 w - - 0 1", S("a1"), BLACK, S("c1"), S("b3"), None, False),
    ("7k/3n4/8/8/2B5/8/B7/K7 w - - 0 1", S("a1"), BLACK, None, None, None, True),
    # a capture of the nightrider itself, and a nightrider of the tested side
    ("7k/3n4/8/8/8/8/8/K7 w - - 0 1", S("a1"), BLACK, S("e5"), S("d7"), None, False),
    ("7k/3N4/8/8/8/8/8/K7 w - - 0 1", S("a1"), BLACK, None, None, None, False),
    # the first leap alone (a knight's square) and a ray along (2, -1) from the h-file
    ("7k/8/8/8/8/8/1n6/3K4 w - - 0 1", S("d1"), BLACK, None, None, None, True),
    ("7k/8/8/8/8/8/8/1n2K3 w - - 0 1", S("h4"), BLACK, None, None, None, True),
    ("7k/8/8/8/8/8/8/1n2K3 w - - 0 1", S("h5"), BLACK, None, None, None, False),
    # en passant: the victim (c5) blocked the ray a4-c5-e6, its capture opens it; the capturing
    # pawn's new square (c6) closes the ray a5-c6-e7
    ("7k/8/4n3/2pP4/K7/8/8/8 w - c6 0 1", S("a4"), BLACK, None, None, None, False),
    ("7k/8/4n3/2pP4/K7/8/8/8 w - c6 0 1", S("a4"), BLACK, S("d5"), S("c6"), S("c5"), True),
    ("7k/4n3/8/K1pP4/8/8/8/8 w - c6 0 1", S("a5"), BLACK, None, None, None, True),
    ("7k/4n3/8/K1pP4/8/8/8/8 w - c6 0 1", S("a5"), BLACK, S("d5"), S("c6"), S("c5"), False),
], ids=lambda c: f"{c[0].split()[0]}-{c[1]}")
def test_nightrider_directed(case):
    fen, sq, by, clr, put, epc, want = case
    board = Board(fen, "nightrider", check_material=False)
    assert reference(board, sq, by, clr, put, epc) == want  # the case says what it means
    assert run_queries([(fen, sq, by, clr, put, epc)], "nightrider") == [want]



@pytest.mark.parametrize("case", [
    # a rook behind the moving piece: a discovered attack on the king (e1) along the file
    ("4r1k1/8/8/8/8/8/4B3/4K3 w - - 0 1", S("e1"), BLACK, S("e2"), S("d3"), None, True),
    # ... not when the piece stays on the line
    ("4r1k1/8/8/8/8/8/4R3/4K3 w - - 0 1", S("e1"), BLACK, S("e2"), S("e5"), None, False),
    # capturing the only attacker
    ("6k1/8/8/8/8/8/8/r3K3 w - - 0 1", S("e1"), BLACK, S("b1"), S("a1"), None, False),
    # en passant takes two pawns off the fifth rank: the rook sees the king
    ("8/8/8/K1pP3r/8/8/8/7k w - c6 0 1", S("a5"), BLACK, S("d5"), S("c6"), S("c5"), True),
    # a king move: the king's old square no longer blocks the slider behind it
    ("8/8/8/8/8/8/8/r3K2k w - - 0 1", S("f1"), BLACK, S("e1"), S("f1"), None, True),
    # knight, pawn and king attacks around the square, and their captures
    ("6k1/8/8/8/8/3n4/8/4K3 w - - 0 1", S("e1"), BLACK, None, None, None, True),
    ("6k1/8/8/8/8/3n4/8/4K3 w - - 0 1", S("e1"), BLACK, S("c1"), S("d3"), None, False),
    ("6k1/8/8/8/8/8/3p4/4K3 w - - 0 1", S("e1"), BLACK, None, None, None, True),
    ("6k1/8/8/8/8/8/3P4/4K3 w - - 0 1", S("e1"), BLACK, None, None, None, False),
    ("8/8/8/8/8/5k2/8/4K3 w - - 0 1", S("f2"), BLACK, None, None, None, True),
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", S("e1"), BLACK, None, None, None, False),  # e8 is far
], ids=lambda c: c[0].split()[0])
def test_directed(case):
    fen, sq, by, clr, put, epc, want = case
    assert reference(Board(fen), sq, by, clr, put, epc) == want  # the case says what it means
    assert run_queries([(fen, sq, by, clr, put, epc)]) == [want]


#: per variant with modes, the piece its random boards are crowded with (the one whose attack
#: is new to the unit)
CROWD = {"grasshopper": "g", "hoppelpoppel": "n", "berolina": "p", "shatranj": "b",
         "makruk": "s", "pawnsideways": "p"}


@pytest.mark.parametrize("variant", WALKED_VARIANTS)
def test_random_queries_of_pieces_with_modes(variant):
    """Against the variant's ``attacked_by_kinds``, which follows each scanned piece's own walk
    (the grasshopper's, the khon's, the pawns'): an independent way to the same answer."""
    fens = crowded_boards(variant, 30, seed=7, crowd=CROWD[variant]) + playouts(variant, 10, 8)
    check(random_cases(240, seed=13, fens=fens, variant=variant), variant)


@pytest.mark.parametrize("case", [
    # a grasshopper hops the hurdle next to the king (e2) and lands on it
    ("4k3/8/8/8/4g3/8/4P3/4K3 w - - 0 1", S("e1"), BLACK, None, None, None, True),
    # ... not when the square next to the king is empty, nor from next to the king
    ("4k3/8/8/8/4g3/8/8/4K3 w - - 0 1", S("e1"), BLACK, None, None, None, False),
    ("4k3/8/8/8/8/8/4g3/4K3 w - - 0 1", S("e1"), BLACK, None, None, None, False),
    # ... nor over a piece between it and the hurdle (it hops the first piece it meets)
    ("4k3/8/8/8/4g3/4N3/4P3/4K3 w - - 0 1", S("e1"), BLACK, None, None, None, False),
    # a move makes the hurdle (d1-e2), or takes it away (e2-d3), or blocks beyond it (to e3)
    ("4k3/8/8/8/4g3/8/8/3NK3 w - - 0 1", S("e1"), BLACK, S("d1"), S("e2"), None, True),
    ("4k3/8/8/8/4g3/8/4B3/4K3 w - - 0 1", S("e1"), BLACK, S("e2"), S("d3"), None, False),
    ("4k3/8/8/8/4g3/8/4P3/4K3 w - - 0 1", S("e1"), BLACK, S("f2"), S("e3"), None, False),
    # on a diagonal, over empty squares to the hurdle; the king moves next to a hurdle
    ("4k3/8/8/8/1g6/8/3P4/4K3 w - - 0 1", S("e1"), BLACK, None, None, None, True),
    ("4k3/8/6g1/8/8/3P4/8/3K4 w - - 0 1", S("c2"), BLACK, S("d1"), S("c2"), None, True),
    ("4k3/8/8/g7/8/2P5/8/3K4 w - - 0 1", S("d2"), BLACK, S("d1"), S("d2"), None, True),
    # the hurdle taken: the king's capture of it is safe; a captured grasshopper attacks not
    ("4k3/8/8/8/4g3/8/4p3/4K3 w - - 0 1", S("e2"), BLACK, S("e1"), S("e2"), None, False),
    ("4k3/8/8/8/4g3/8/4P3/4K3 w - - 0 1", S("e1"), BLACK, S("a4"), S("e4"), None, False),
    # a grasshopper of the tested side attacks nothing here
    ("4k3/8/8/8/4G3/8/4P3/4K3 w - - 0 1", S("e1"), BLACK, None, None, None, False),
], ids=lambda c: f"{c[0].split()[0]}-{c[1]}-{c[3]}")
def test_grasshopper_directed(case):
    fen, sq, by, clr, put, epc, want = case
    board = Board(fen, "grasshopper", check_material=False)
    assert reference(board, sq, by, clr, put, epc) == want  # the case says what it means
    assert run_queries([(fen, sq, by, clr, put, epc)], "grasshopper") == [want]


@pytest.mark.parametrize("variant, fen, sq, want", [
    # a berolina pawn takes straight ahead, not on the diagonal
    ("berolina", "4k3/8/8/8/8/4p3/8/4K3 w - - 0 1", "e2", True),
    ("berolina", "4k3/8/8/8/8/3p4/8/4K3 w - - 0 1", "e2", False),
    # a khon (FfW) takes forward as its colour sees the board: down for Black
    ("makruk", "4k3/8/8/8/8/4s3/8/4K3 w - - 0 1", "e2", True),
    ("makruk", "4k3/8/8/8/8/8/4s3/4K3 w - - 0 1", "e3", False),
    ("makruk", "4k3/8/8/8/8/8/4s3/4K3 w - - 0 1", "d1", True),
    # an alfil leaps two diagonally over a piece between; a ferz steps one diagonally
    ("shatranj", "4k3/8/8/8/2b5/3P4/8/4K3 w - - 0 1", "e2", True),
    ("shatranj", "4k3/8/8/8/8/3q4/8/4K3 w - - 0 1", "e2", True),
    ("shatranj", "4k3/8/8/8/8/4q3/8/4K3 w - - 0 1", "e2", False),
    # hoppelpoppel: the knibis captures as a bishop, the biskni as a knight
    ("hoppelpoppel", "4k3/8/8/8/1n6/8/8/4K3 w - - 0 1", "e1", True),
    ("hoppelpoppel", "4k3/8/8/8/8/3b4/8/4K3 w - - 0 1", "e1", True),
    ("hoppelpoppel", "4k3/8/8/8/8/3n4/8/4K3 w - - 0 1", "e1", False),
])
def test_leapers_directed(variant, fen, sq, want):
    case = (fen, S(sq), BLACK, None, None, None)
    assert reference(Board(fen, variant, check_material=False), *case[1:]) == want
    assert run_queries([case], variant) == [want]
