"""The checks a position may stand in (engine.rules.fen's check rules): no more than two, not two
from both sides of the king along a line, after an en passant square's double step only one it can
have given. Oracles: python-chess's ``Board.status()`` for chess and Chess960, and positions that
pyffish (Fairy-Stockfish) reaches with one legal move for the fairy variants the rules are claimed
for, and for nightrider, where they do not hold."""

import random
from collections import Counter

import chess
import pyffish
import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import BLACK, DOUBLE, KING, PAWN, WHITE
from posdata.engine.rules.fen import FenError
from posdata.engine.rules.pieces import AttackKind
from posdata.engine.rules.variants import get_variant

#: the rules' flags in python-chess's status
CHECK_FLAGS = chess.STATUS_TOO_MANY_CHECKERS | chess.STATUS_IMPOSSIBLE_CHECK


def random_position(rng: random.Random) -> str:
    """Kings and up to twelve pieces anywhere; mostly after a double step of the side not to
    move (its en passant square given, as it is valid: only the checks can be wrong), the king
    to move now and then where that pawn gives check; now and then two enemy riders on a line
    through the king to move, one on each side of it."""
    b = chess.Board(None)
    turn = rng.random() < 0.5
    taken = set()
    ep = None
    if rng.random() < 0.6:
        file = rng.randrange(8)
        to = chess.square(file, 4 if turn == chess.WHITE else 3)
        ep = chess.square(file, 5 if turn == chess.WHITE else 2)
        b.set_piece_at(to, chess.Piece(chess.PAWN, not turn))
        taken = {to, ep, ep + (8 if turn == chess.WHITE else -8)}  # passed and left: empty
    kings = rng.sample([s for s in range(64) if s not in taken], 2)
    if ep is not None and rng.random() < 0.3:  # where the pawn that stepped gives check
        ahead = to - 8 if turn == chess.WHITE else to + 8
        beside = [s for s in (ahead - 1, ahead + 1) if s // 8 == ahead // 8 and s not in kings]
        if beside:
            kings[0 if turn == chess.WHITE else 1] = rng.choice(beside)
    b.set_piece_at(kings[0], chess.Piece(chess.KING, chess.WHITE))
    b.set_piece_at(kings[1], chess.Piece(chess.KING, chess.BLACK))
    taken.update(kings)
    if rng.random() < 0.2:
        king = kings[0] if turn == chess.WHITE else kings[1]
        df, dr = rng.choice([(1, 0), (0, 1), (1, 1), (1, -1)])
        kind = chess.ROOK if 0 in (df, dr) else chess.BISHOP
        for sign in (1, -1):
            line = ray(king, sign * df, sign * dr)
            if line:
                sq = rng.choice(line[:3])
                if sq not in taken:
                    b.set_piece_at(sq, chess.Piece(rng.choice((kind, chess.QUEEN)), not turn))
                    taken.add(sq)
    free = [s for s in range(64) if s not in taken]
    for s in rng.sample(free, rng.randint(0, 12)):
        kind = rng.choice((chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN))
        if kind == chess.PAWN and chess.square_rank(s) in (0, 7):
            kind = chess.BISHOP
        b.set_piece_at(s, chess.Piece(kind, rng.random() < 0.5))
    b.turn = turn
    fields = b.fen().split()
    fields[3] = chess.square_name(ep) if ep is not None else "-"
    return " ".join(fields)


@pytest.mark.parametrize("variant", ["chess", "chess960"])
def test_refused_exactly_as_python_chess_status(variant):
    """Random positions, many with two or three checks: posdata accepts one exactly when
    python-chess finds nothing wrong with it (the side not to move in check included)."""
    rng = random.Random(43)
    seen = Counter()
    for _ in range(700):
        fen = random_position(rng)
        status = chess.Board(fen, chess960=variant == "chess960").status()
        try:
            Board(fen, variant)
            accepted = True
        except FenError as e:
            accepted = False
            assert "\n" not in str(e)
        assert accepted == (status == chess.STATUS_VALID), \
            f"first difference: {fen} ({variant}): python-chess {status!r}, posdata " \
            f"{'accepts' if accepted else 'refuses'}"
        ep = fen.split()[3] != "-"
        seen[("ep" if ep else "no ep", status & CHECK_FLAGS)] += 1
        if accepted and chess.Board(fen).is_check():
            seen[("ep" if ep else "no ep", "valid check", len(chess.Board(fen).checkers()))] += 1
    # each rule refuses some positions, and valid checks (double ones too) are let through
    for key in [("no ep", CHECK_FLAGS), ("no ep", chess.STATUS_IMPOSSIBLE_CHECK),
                ("ep", chess.STATUS_IMPOSSIBLE_CHECK), ("ep", CHECK_FLAGS),
                ("no ep", "valid check", 2), ("ep", "valid check", 1)]:
        assert seen[key] >= 5, (key, seen)


@pytest.mark.parametrize("fen, words", [
    ("4k3/8/8/8/1b5b/8/3n4/r3K2r w - - 0 1", ["3 pieces give check", "e1", "a1, h1, h4"]),
    ("4k3/8/8/8/8/8/8/r3K2r w - - 0 1", ["from both sides along a line", "a1, h1"]),
    ("8/8/8/2k5/3P4/8/8/2R1K3 b - d3 0 1", ["2 pieces give check", "c1, d4", "d2-d4"]),
    ("8/8/8/k7/3P4/8/8/R3K3 b - d3 0 1", ["black king on a5 was in check before the double "
                                         "step d2-d4"]),
])
@pytest.mark.parametrize("variant", ["chess", "chess960", "amazon", "almost"])
def test_impossible_checks_named_in_one_line(fen, words, variant):
    with pytest.raises(FenError) as info:
        Board(fen, variant)
    message = str(info.value)
    assert message.startswith("impossible position: ") and "\n" not in message
    for word in words:
        assert word in message, message


# --- the fairy variants: what one legal move reaches is accepted -------------------------------

LINES = {AttackKind.ORTHOGONAL_RIDER: ((1, 0), (-1, 0), (0, 1), (0, -1)),
         AttackKind.DIAGONAL_RIDER: ((1, 1), (1, -1), (-1, 1), (-1, -1))}


def discovery_position(rng: random.Random, variant) -> str | None:
    """A piece of the side to move between one of its riders and the other king, often a pawn
    on its home rank with an enemy pawn where its double step lands beside (Fairy-Stockfish
    then writes the en passant square), among a few pieces of both sides: its moves uncover a
    check, some give one of their own."""
    mover = rng.randrange(2)
    army = {c: [code for code in variant.start_army(c) if code != KING] for c in (WHITE, BLACK)}
    kind = rng.choice(list(LINES))
    riders = [c for c in army[mover] if c != PAWN and variant.attack_kinds(mover, c) & kind]
    if not riders:
        return None
    board = {}
    if rng.random() < 0.4:  # the blocker: a pawn at home, the line across its file
        home = 1 if mover == WHITE else 6
        blocker = home * 8 + rng.randrange(8)
        df, dr = rng.choice([d for d in LINES[kind] if d[0]])
        board[blocker] = (mover, PAWN)
        land = blocker + (16 if mover == WHITE else -16)
        for side_sq in (land - 1, land + 1):
            if side_sq // 8 == land // 8 and rng.random() < 0.7:
                board[side_sq] = (mover ^ 1, PAWN)
        near, far = ray(blocker, -df, -dr), ray(blocker, df, dr)
        if not near or not far:
            return None
        board.setdefault(rng.choice(near), (mover ^ 1, KING))
        board.setdefault(rng.choice(far), (mover, rng.choice(riders)))
    else:
        king = rng.randrange(64)
        line = ray(king, *rng.choice(LINES[kind]))
        if len(line) < 2:
            return None
        i = rng.randrange(len(line) - 1)
        board[king] = (mover ^ 1, KING)
        board[line[i]] = (mover, rng.choice(army[mover]))
        board[line[rng.randrange(i + 1, len(line))]] = (mover, rng.choice(riders))
    for color in (mover, mover ^ 1):
        for _ in range(4):
            board.setdefault(rng.randrange(64), (color, rng.choice(army[color])))
    board.setdefault(rng.choice([s for s in range(64) if s not in board]), (mover, KING))
    if sum(1 for c, code in board.values() if code == KING) != 2 or \
            any(code == PAWN and sq // 8 in (0, 7) for sq, (c, code) in board.items()):
        return None
    rows = []
    for rank in range(7, -1, -1):
        row, gap = "", 0
        for file in range(8):
            if rank * 8 + file not in board:
                gap += 1
                continue
            row += (str(gap) if gap else "") + variant.letter(*board[rank * 8 + file])
            gap = 0
        rows.append(row + (str(gap) if gap else ""))
    return "/".join(rows) + f" {'wb'[mover]} - - 0 1"


def ray(sq: int, df: int, dr: int) -> list[int]:
    out, f, r = [], sq % 8 + df, sq // 8 + dr
    while 0 <= f < 8 and 0 <= r < 8:
        out.append(r * 8 + f)
        f, r = f + df, r + dr
    return out


def checkers(board: Board) -> int:
    """How many pieces give check (the test's own count, through the board's attack test: each
    enemy piece alone with the king, the other pieces of its side made pawns of the king's, which
    block as they did and attack nothing)."""
    king, them = board.king[board.side], board.side ^ 1
    color, piece = board.color, board.piece
    count = 0
    for sq in range(64):
        if color[sq] != them or piece[sq] == KING:
            continue
        saved = list(color), list(piece)
        for other in range(64):
            if color[other] == them and other != sq:
                color[other], piece[other] = board.side, PAWN
        count += board.attacked(king, them)
        color[:], piece[:] = saved
    return count


@pytest.mark.parametrize("name", ["amazon", "almost", "chigorin"])
def test_what_a_legal_move_reaches_is_accepted(name):
    """Positions with double checks and checks after a double step, each the FEN pyffish gives
    after a move it finds legal in a position posdata accepts: none is refused."""
    variant = get_variant(name)
    rng = random.Random(29)
    found = Counter()
    while found["double check"] < 10 or found["check after a double step"] < 5:
        fen = discovery_position(rng, variant)
        if fen is None:
            continue
        try:
            board = Board(fen, variant)
        except FenError:
            continue
        picked = []
        for m in board.legal_moves():
            board.makemove(m)
            if board.in_check():
                n = checkers(board)
                if n >= 2 or m & DOUBLE:
                    picked.append((board.uci(m), n))
            board.takeback()
        if not picked:
            continue
        legal = set(pyffish.legal_moves(variant.fsf_name, fen, []))
        for uci, n in picked[:2]:
            assert uci in legal, (fen, uci)
            after = pyffish.get_fen(variant.fsf_name, fen, [uci])
            try:
                Board(after, variant)
            except FenError as e:
                pytest.fail(f"{fen} {uci} -> {after} refused: {e}")
            if n >= 2:
                found["double check"] += 1
            elif after.split()[3] != "-":
                found["check after a double step"] += 1


def test_nightrider_keeps_a_triple_check_a_move_gives():
    """En passant uncovers a rook and a nightrider at once: three checks, reached by legal
    moves (pyffish), so the rules are not applied to nightrider."""
    before = "8/3pk3/8/4P3/8/2N5/8/4R2K b - - 0 1"
    after = pyffish.get_fen("nightrider", before, ["d7d5", "e5d6"])
    assert after.startswith("8/4k3/3P4/8/8/2N5/8/4R2K b")
    assert checkers(Board(after, "nightrider")) == 3
