"""A TSCP-style board: ``color[64]``, ``piece[64]``, one move stack for all plies, and
makemove/takeback over a history stack.

The move stack (``gen_dat`` with a parallel ``gen_score``) holds the moves of every ply of the
current line; ``first_move[ply]`` .. ``first_move[ply + 1]`` delimit those of ply ``ply``. A
generator (``engine.movegen.gen`` or the gateware's driver) fills the slice of the current ply.

``makemove(m)`` plays a pseudo-legal move and returns False, leaving the position unchanged, when
the move leaves the mover's king attacked, including castling out of or through check (TSCP's
contract). ``takeback()`` undoes the last successful makemove.
"""

from .defs import (
    BISHOP,
    BLACK,
    BPAWN,
    CASTLE,
    CASTLES,
    DOUBLE,
    EMPTY,
    EP,
    KING,
    KNIGHT,
    NO_PIECE,
    NO_SQUARE,
    PAWN,
    PROMOTION,
    QUEEN,
    ROOK,
    START_FEN,
    WHITE,
    move_uci,
)
from .fen import FenError, format_fen, parse_fen
from .lines import PIN_LINES
from .posdata import NEXTDIR_ROWS, NEXTPOS_ROWS
from .zobrist import CASTLE_KEYS, EP_KEYS, PIECE_KEYS, SIDE_KEY, full_hash

MAX_PLY = 256

#: castle rights that survive a move touching a square (TSCP's castle_mask)
CASTLE_MASK = [15] * 64
for _side in (WHITE, BLACK):
    for _c in CASTLES[_side]:
        CASTLE_MASK[_c.rook_from] &= ~_c.right
        CASTLE_MASK[_c.king_from] &= ~_c.right
CASTLE_BY_KING_TO = {c.king_to: c for side in CASTLES for c in side}
#: the Zobrist keys of one (colour, piece) as a row per square: KEY_ROWS[color * 7 + piece][sq]
KEY_ROWS = [PIECE_KEYS[i * 64:(i + 1) * 64] for i in range(2 * 7)]

# posdata rows used by attacked(): per square, the "super-piece" walks outward from it
_ROW = 64
_PAWN_ATTACKERS = (  # by white: a black pawn's capture squares from sq, and vice versa
    NEXTDIR_ROWS[BPAWN * _ROW: BPAWN * _ROW + 64], NEXTDIR_ROWS[PAWN * _ROW: PAWN * _ROW + 64])
_KNIGHT = NEXTDIR_ROWS[KNIGHT * _ROW: KNIGHT * _ROW + 64]
_KING = NEXTDIR_ROWS[KING * _ROW: KING * _ROW + 64]
_BISHOP_POS = NEXTPOS_ROWS[BISHOP * _ROW: BISHOP * _ROW + 64]
_BISHOP_DIR = NEXTDIR_ROWS[BISHOP * _ROW: BISHOP * _ROW + 64]
_ROOK_POS = NEXTPOS_ROWS[ROOK * _ROW: ROOK * _ROW + 64]
_ROOK_DIR = NEXTDIR_ROWS[ROOK * _ROW: ROOK * _ROW + 64]


class Board:
    def __init__(self, fen: str = START_FEN):
        self.gen_dat: list[int] = []
        self.gen_score: list[int] = []
        self.first_move = [0] * (MAX_PLY + 1)
        self.set_fen(fen)

    # --- setting up ------------------------------------------------------------------------

    def set_fen(self, fen: str) -> None:
        pos = parse_fen(fen)
        kings = [next(sq for sq in range(64) if pos.color[sq] == side and pos.piece[sq] == KING)
                 for side in (WHITE, BLACK)]
        self.color, self.piece = pos.color, pos.piece
        self.side, self.castle, self.ep = pos.side, pos.castle, pos.ep
        self.fifty, self.start_fullmove, self.start_side = pos.fifty, pos.fullmove, pos.side
        self.king = kings
        self.hash = full_hash(self.color, self.piece, self.side, self.castle, self.ep)
        self.hist: list[tuple] = []  # (move, captured, castle, ep, fifty, hash) per made move
        self.ply = 0
        self.first_move[0] = 0
        del self.gen_dat[:], self.gen_score[:]
        self.check_cache: list = [None] * (MAX_PLY + 1)
        if self.attacked(kings[self.side ^ 1], self.side):
            raise FenError("impossible position: the side not to move is in check")

    def fen(self) -> str:
        black_moves = (len(self.hist) + self.start_side) // 2  # fullmove counts black's moves
        return format_fen(self.color, self.piece, self.side, self.castle, self.ep, self.fifty,
                          self.start_fullmove + black_moves)

    # --- attacks ---------------------------------------------------------------------------

    def attacked(self, sq: int, by: int) -> bool:
        """Is ``sq`` attacked by side ``by``? Walks the posdata tables outward from ``sq`` like
        GNU Chess's SqAtakd: the square as a pawn, knight, bishop, rook and king of its own."""
        color, piece = self.color, self.piece
        chain = _PAWN_ATTACKERS[by][sq]
        u = chain[sq]
        while u != sq:
            if color[u] == by and piece[u] == PAWN:
                return True
            u = chain[u]
        chain = _KNIGHT[sq]
        u = chain[sq]
        while u != sq:
            if color[u] == by and piece[u] == KNIGHT:
                return True
            u = chain[u]
        ppos, pdir = _BISHOP_POS[sq], _BISHOP_DIR[sq]
        u = ppos[sq]
        while u != sq:
            c = color[u]
            if c == EMPTY:
                u = ppos[u]
            else:
                if c == by and (piece[u] == BISHOP or piece[u] == QUEEN):
                    return True
                u = pdir[u]
        ppos, pdir = _ROOK_POS[sq], _ROOK_DIR[sq]
        u = ppos[sq]
        while u != sq:
            c = color[u]
            if c == EMPTY:
                u = ppos[u]
            else:
                if c == by and (piece[u] == ROOK or piece[u] == QUEEN):
                    return True
                u = pdir[u]
        chain = _KING[sq]
        u = chain[sq]
        while u != sq:
            if color[u] == by and piece[u] == KING:
                return True
            u = chain[u]
        return False

    def in_check(self, side: int | None = None) -> bool:
        """Is ``side`` (default: the side to move) in check? Cached per ply for the side to move."""
        if side is None or side == self.side:
            cached = self.check_cache[self.ply]
            if cached is None:
                cached = self.check_cache[self.ply] = self.attacked(self.king[self.side],
                                                                    self.side ^ 1)
            return cached
        return self.attacked(self.king[side], side ^ 1)

    # --- making and unmaking moves ---------------------------------------------------------

    def makemove(self, m: int) -> bool:
        color, piece = self.color, self.piece
        side = self.side
        xside = side ^ 1
        frm = m & 63
        to = (m >> 6) & 63
        ply = self.ply
        check_cache = self.check_cache
        checked = check_cache[ply]
        if checked is None:
            checked = check_cache[ply] = self.attacked(self.king[side], xside)
        old_hash = self.hash
        h = old_hash ^ SIDE_KEY
        if m & CASTLE:
            c = CASTLE_BY_KING_TO[to]
            if checked or self.attacked(c.passes, xside):
                return False
            color[c.rook_from], piece[c.rook_from] = EMPTY, NO_PIECE
            color[c.rook_to], piece[c.rook_to] = side, ROOK
            rook_keys = KEY_ROWS[side * 7 + ROOK]
            h ^= rook_keys[c.rook_from] ^ rook_keys[c.rook_to]
        p = piece[frm]
        captured = piece[to]
        castle, ep, fifty = self.castle, self.ep, self.fifty
        self.hist.append((m, captured, castle, ep, fifty, old_hash))

        # the board and the hash
        keys = KEY_ROWS[side * 7 + p]
        if m & PROMOTION:
            promoted = m >> 18
            h ^= keys[frm] ^ KEY_ROWS[side * 7 + promoted][to]
            piece[to] = promoted
        else:
            h ^= keys[frm] ^ keys[to]
            piece[to] = p
        color[to] = side
        color[frm] = EMPTY
        piece[frm] = NO_PIECE
        if captured:
            h ^= KEY_ROWS[xside * 7 + captured][to]
            fifty = 0
        elif p == PAWN:
            fifty = 0
        else:
            fifty += 1
        if m & EP:
            cap_sq = to - 8 if side == WHITE else to + 8
            color[cap_sq] = EMPTY
            piece[cap_sq] = NO_PIECE
            h ^= KEY_ROWS[xside * 7 + PAWN][cap_sq]

        # the rest of the state
        if castle:
            new_castle = castle & CASTLE_MASK[frm] & CASTLE_MASK[to]
            if new_castle != castle:
                h ^= CASTLE_KEYS[castle] ^ CASTLE_KEYS[new_castle]
                self.castle = new_castle
        if ep != NO_SQUARE:
            h ^= EP_KEYS[ep]
        if m & DOUBLE:
            ep = (frm + to) >> 1
            h ^= EP_KEYS[ep]
            self.ep = ep
        else:
            self.ep = NO_SQUARE
        self.fifty = fifty
        self.hash = h
        self.side = xside
        self.ply = ply + 1
        check_cache[ply + 1] = None

        # Legality: a full attack test only when the cheap one cannot decide.
        if p == KING:
            self.king[side] = to
            illegal = self.attacked(to, xside)
        elif checked or m & EP:
            illegal = self.attacked(self.king[side], xside)
        else:
            line = PIN_LINES[self.king[side] * 64 + frm]
            if line is None:
                return True
            squares, diagonal = line
            slider = BISHOP if diagonal else ROOK
            illegal = False
            for s in squares:
                c = color[s]
                if c != EMPTY:
                    illegal = c == xside and (piece[s] == slider or piece[s] == QUEEN)
                    break
        if illegal:
            self.takeback()
            return False
        return True

    def takeback(self) -> None:
        m, captured, castle, ep, fifty, h = self.hist.pop()
        color, piece = self.color, self.piece
        xside = self.side
        side = xside ^ 1
        self.side = side
        self.ply -= 1
        self.castle = castle
        self.ep = ep
        self.fifty = fifty
        self.hash = h
        frm = m & 63
        to = (m >> 6) & 63
        p = PAWN if m & PROMOTION else piece[to]
        color[frm] = side
        piece[frm] = p
        if captured:
            color[to] = xside
            piece[to] = captured
        else:
            color[to] = EMPTY
            piece[to] = NO_PIECE
        if p == KING:
            self.king[side] = frm
            if m & CASTLE:
                c = CASTLE_BY_KING_TO[to]
                color[c.rook_to], piece[c.rook_to] = EMPTY, NO_PIECE
                color[c.rook_from], piece[c.rook_from] = side, ROOK
        elif m & EP:
            cap_sq = to - 8 if side == WHITE else to + 8
            color[cap_sq] = xside
            piece[cap_sq] = PAWN

    # --- helpers for games and UI ----------------------------------------------------------

    def moves(self, gen=None) -> list[int]:
        """The pseudo-legal moves of the current position, in generation order."""
        if gen is None:
            from .movegen import gen
        gen(self)
        return self.gen_dat[self.first_move[self.ply]:self.first_move[self.ply + 1]]

    def legal_moves(self, gen=None) -> list[int]:
        legal = []
        for m in self.moves(gen):
            if self.makemove(m):
                self.takeback()
                legal.append(m)
        return legal

    def parse_uci(self, text: str) -> int:
        """The legal move written ``text`` (``e2e4``, ``e7e8q``, ``e1g1``); ValueError if none."""
        for m in self.legal_moves():
            if move_uci(m) == text:
                return m
        raise ValueError(f"illegal or unknown move {text!r} in {self.fen()}")

    def push_uci(self, text: str) -> int:
        """Play a move of a game: unlike makemove from a search, the game's start moves up."""
        m = self.parse_uci(text)
        self.makemove(m)
        self.ply = 0
        self.first_move[0] = 0
        self.check_cache[0] = None
        return m
