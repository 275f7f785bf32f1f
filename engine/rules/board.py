"""A TSCP-style board: ``color[64]``, ``piece[64]``, one move stack for all plies, and
makemove/takeback over a history stack.

The move stack (``gen_dat`` with a parallel ``gen_score``) holds the moves of every ply of the
current line; ``first_move[ply]`` .. ``first_move[ply + 1]`` delimit those of ply ``ply``. A
generator (``engine.rules.movegen.gen`` or the gateware's driver) fills the slice of the current
ply.

``makemove(m)`` plays a pseudo-legal move and returns False, leaving the position unchanged, when
the move leaves the mover's king attacked, including castling out of or through check (TSCP's
contract). ``takeback()`` undoes the last successful makemove.

A board plays one variant (``engine.rules.variants``; orthodox chess by default): its pieces' tables
(``engine.rules.variant_data``), its FEN letters, and for Chess960 the castlings its FEN allowed
(``castles``). A castling move word is always the king's from- and to-square with CASTLE (e1g1);
``uci(m)`` writes it as the king taking its own rook (e1h1) when ``chess960_notation`` is set.
"""

from .defs import (
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
    ROOK,
    SQUARE_NAMES,
    WHITE,
    move_uci,
)
from .fen import FenError, format_fen, parse_fen
from .lines import PIN_LINES
from .pieces import CAPTURE as _CAPTURE_MODE
from .posdata import NEXTDIR_ROWS, NEXTPOS_ROWS
from .variant_data import variant_data
from .variants import CHESS, get_variant
from .zobrist import CASTLE_KEYS, EP_KEYS, KEY_ROWS, SIDE_KEY, full_hash

MAX_PLY = 256


def castle_mask(castles) -> list[int]:
    """Castle rights that survive a move touching a square (TSCP's castle_mask)."""
    mask = [15] * 64
    for side in castles:
        for c in side:
            mask[c.rook_from] &= ~c.right
            mask[c.king_from] &= ~c.right
    return mask


CASTLE_MASK = castle_mask(CASTLES)
CASTLE_BY_KING_TO = {c.king_to: c for side in CASTLES for c in side}
#: a non-king move that needs the full attack test (variants with riders off the lines)
_FULL_TEST = "full"
_ALL_FULL = [_FULL_TEST] * 4096

# posdata rows used by attacked(): per square, the "super-piece" walks outward from it
_ROW = 64
_PAWN_ATTACKERS = (  # by white: a black pawn's capture squares from sq, and vice versa
    NEXTDIR_ROWS[BPAWN * _ROW: BPAWN * _ROW + 64], NEXTDIR_ROWS[PAWN * _ROW: PAWN * _ROW + 64])
_KNIGHT = NEXTDIR_ROWS[KNIGHT * _ROW: KNIGHT * _ROW + 64]
_KING = NEXTDIR_ROWS[KING * _ROW: KING * _ROW + 64]
_BISHOP_POS = NEXTPOS_ROWS[3 * _ROW: 3 * _ROW + 64]
_BISHOP_DIR = NEXTDIR_ROWS[3 * _ROW: 3 * _ROW + 64]
_ROOK_POS = NEXTPOS_ROWS[ROOK * _ROW: ROOK * _ROW + 64]
_ROOK_DIR = NEXTDIR_ROWS[ROOK * _ROW: ROOK * _ROW + 64]
_BISHOP, _QUEEN = 3, 5


class Board:
    def __init__(self, fen: str | None = None, variant=CHESS, check_material: bool = True):
        """``fen`` defaults to the variant's start position; ``variant`` is a Variant or a name.
        ``check_material=False`` accepts material no game reaches (tests of buffer sizes)."""
        self.variant = get_variant(variant)
        self.data = variant_data(self.variant)
        self.chess960_notation = self.variant.chess960
        self.gen_dat: list[int] = []
        self.gen_score: list[int] = []
        self.first_move = [0] * (MAX_PLY + 1)
        if not self.data.orthodox:
            self.attacked = self.attacked_by_kinds
        self.line_attackers = self.data.line_attackers
        self.pin_lines = PIN_LINES if self.data.lines_only else _ALL_FULL
        self.set_fen(self.variant.start_fen if fen is None else fen, check_material)

    # --- setting up ------------------------------------------------------------------------

    def set_fen(self, fen: str, check_material: bool = True) -> None:
        pos = parse_fen(fen, self.variant, check_material)
        kings = [next(sq for sq in range(64) if pos.color[sq] == side and pos.piece[sq] == KING)
                 for side in (WHITE, BLACK)]
        self.color, self.piece = pos.color, pos.piece
        self.side, self.castle, self.ep = pos.side, pos.castle, pos.ep
        self.root_ep_victim = pos.ep_victim
        self.root_count = pos.count_limit, pos.count_ply
        self.fifty, self.start_fullmove, self.start_side = pos.fifty, pos.fullmove, pos.side
        self.king = kings
        self.castles = pos.castles
        if pos.castles is CASTLES:
            self.castle_mask, self.castle_by_king_to = CASTLE_MASK, CASTLE_BY_KING_TO
        else:
            self.castle_mask = castle_mask(pos.castles)
            self.castle_by_king_to = {c.king_to: c for side in pos.castles for c in side}
        self.hash = full_hash(self.color, self.piece, self.side, self.castle, self.ep)
        self.hist: list[tuple] = []  # (move, captured, castle, ep, fifty, hash) per made move
        self.ply = 0
        self.first_move[0] = 0
        del self.gen_dat[:], self.gen_score[:]
        self.check_cache: list = [None] * (MAX_PLY + 1)
        if self.attacked(kings[self.side ^ 1], self.side):
            raise FenError("impossible position: the side not to move is in check")

    def copy(self) -> "Board":
        """A board of its own at the same position with the same history: the same
        repetitions, FEN and takebacks (the history's entries are immutable, so they are
        shared)."""
        other = Board(self.fen(), self.variant)
        other.chess960_notation = self.chess960_notation
        other.hist = list(self.hist)
        other.start_fullmove, other.start_side = self.start_fullmove, self.start_side
        return other

    def fen(self) -> str:
        black_moves = (len(self.hist) + self.start_side) // 2  # fullmove counts black's moves
        victim = NO_SQUARE
        if self.ep != NO_SQUARE and self.variant.ep_pair:
            victim = self._ep_victim(1)
        count = (0, 0)
        if self.variant.counting:
            from .counting import count_after
            count = count_after(self, *self.root_count)
        return format_fen(self.color, self.piece, self.side, self.castle, self.ep, self.fifty,
                          self.start_fullmove + black_moves, self.variant, self.castles, victim,
                          count)

    # --- attacks ---------------------------------------------------------------------------

    def attacked(self, sq: int, by: int) -> bool:
        """Is ``sq`` attacked by side ``by``? Walks the posdata tables outward from ``sq`` like
        GNU Chess's SqAtakd: the square as a pawn, knight, bishop, rook and king of its own.
        (Orthodox pieces; other variants use ``attacked_by_kinds``.)"""
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
                if c == by and (piece[u] == _BISHOP or piece[u] == _QUEEN):
                    return True
                u = pdir[u]
        ppos, pdir = _ROOK_POS[sq], _ROOK_DIR[sq]
        u = ppos[sq]
        while u != sq:
            c = color[u]
            if c == EMPTY:
                u = ppos[u]
            else:
                if c == by and (piece[u] == ROOK or piece[u] == _QUEEN):
                    return True
                u = pdir[u]
        chain = _KING[sq]
        u = chain[sq]
        while u != sq:
            if color[u] == by and piece[u] == KING:
                return True
            u = chain[u]
        return False

    def attacked_by_kinds(self, sq: int, by: int) -> bool:
        """``attacked`` for any variant: the pawn's capture thread, then one super-piece walk
        per attack kind of the variant (``VariantData.attack_walks``): the first piece met on
        each line attacks if it is ``by``'s and moves that way; then the scanned pieces
        (``VariantData.scanned``): each of ``by``'s that stands where its walk can capture on
        ``sq`` follows that walk, ``sq`` taken as occupied."""
        color, piece = self.color, self.piece
        data = self.data
        if data.pawn_threads:
            chain = _PAWN_ATTACKERS[by][sq]
            u = chain[sq]
            while u != sq:
                if color[u] == by and piece[u] == PAWN:
                    return True
                u = chain[u]
        for code, sources, walks in data.scanned[by]:
            for f in sources[sq]:
                if piece[f] == code and color[f] == by:
                    walk = walks[f]
                    squares, modes = walk.squares, walk.modes
                    on_empty, on_occupied = walk.on_empty, walk.on_occupied
                    i, n = 0, len(squares)
                    while i < n:
                        u = squares[i]
                        if u == sq:
                            if modes[i] & _CAPTURE_MODE:
                                return True
                            i = on_occupied[i]
                        elif color[u] == EMPTY:
                            i = on_empty[i]
                        else:
                            i = on_occupied[i]
        for pos_rows, dir_rows, rider, attackers in self.data.attack_walks:
            ppos, pdir = pos_rows[sq], dir_rows[sq]
            u = ppos[sq]
            if rider:
                while u != sq:
                    c = color[u]
                    if c == EMPTY:
                        u = ppos[u]
                    else:
                        if c == by and piece[u] in attackers:
                            return True
                        u = pdir[u]
            else:
                while u != sq:
                    if color[u] == by and piece[u] in attackers:
                        return True
                    u = pdir[u]
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
        if m & CASTLE:
            return self._castle(m, checked)
        old_hash = self.hash
        h = old_hash ^ SIDE_KEY
        p = piece[frm]
        captured = piece[to]
        castle, ep, fifty = self.castle, self.ep, self.fifty
        self.hist.append((m, captured, castle, ep, fifty, old_hash))

        # the board and the hash
        keys = KEY_ROWS[side * 8 + p]
        if m & PROMOTION:
            promoted = m >> 18
            h ^= keys[frm] ^ KEY_ROWS[side * 8 + promoted][to]
            piece[to] = promoted
        else:
            h ^= keys[frm] ^ keys[to]
            piece[to] = p
        color[to] = side
        color[frm] = EMPTY
        piece[frm] = NO_PIECE
        if captured:
            h ^= KEY_ROWS[xside * 8 + captured][to]
            fifty = 0
        elif p == PAWN and (frm ^ to) > 7:  # a pawn's step sideways can be undone
            fifty = 0
        else:
            fifty += 1
        if m & EP:
            cap_sq = self._ep_victim(2) if self.data.ep_by_history else \
                to - 8 if side == WHITE else to + 8
            color[cap_sq] = EMPTY
            piece[cap_sq] = NO_PIECE
            h ^= KEY_ROWS[xside * 8 + PAWN][cap_sq]

        # the rest of the state
        if castle:
            mask = self.castle_mask
            new_castle = castle & mask[frm] & mask[to]
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
            line = self.pin_lines[self.king[side] * 64 + frm]
            if line is None:
                return True
            if line is _FULL_TEST:
                illegal = self.attacked(self.king[side], xside)
            else:
                squares, diagonal = line
                attackers = self.line_attackers[diagonal]
                illegal = False
                for s in squares:
                    c = color[s]
                    if c != EMPTY:
                        illegal = c == xside and piece[s] in attackers
                        break
        if illegal:
            self.takeback()
            return False
        return True

    def _castle(self, m: int, checked: bool) -> bool:
        """Castling: out of check and through no attacked square; king and rook leave their
        squares before either lands (in Chess960 they may swap, or one may stay put)."""
        side = self.side
        xside = side ^ 1
        c = self.castle_by_king_to[(m >> 6) & 63]
        if checked:
            return False
        for s in c.crosses:
            if self.attacked(s, xside):
                return False
        color, piece = self.color, self.piece
        castle, ep, fifty = self.castle, self.ep, self.fifty
        old_hash = self.hash
        self.hist.append((m, NO_PIECE, castle, ep, fifty, old_hash))
        king_keys, rook_keys = KEY_ROWS[side * 8 + KING], KEY_ROWS[side * 8 + ROOK]
        h = (old_hash ^ SIDE_KEY ^ king_keys[c.king_from] ^ king_keys[c.king_to]
             ^ rook_keys[c.rook_from] ^ rook_keys[c.rook_to])
        color[c.king_from] = color[c.rook_from] = EMPTY
        piece[c.king_from] = piece[c.rook_from] = NO_PIECE
        color[c.king_to] = color[c.rook_to] = side
        piece[c.king_to], piece[c.rook_to] = KING, ROOK
        new_castle = castle & self.castle_mask[c.king_from]
        h ^= CASTLE_KEYS[castle] ^ CASTLE_KEYS[new_castle]
        self.castle = new_castle
        if ep != NO_SQUARE:
            h ^= EP_KEYS[ep]
            self.ep = NO_SQUARE
        self.fifty = fifty + 1
        self.hash = h
        self.side = xside
        self.ply += 1
        self.check_cache[self.ply] = None
        self.king[side] = c.king_to
        if self.attacked(c.king_to, xside):
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
        if m & CASTLE:
            c = self.castle_by_king_to[to]
            color[c.king_to] = color[c.rook_to] = EMPTY
            piece[c.king_to] = piece[c.rook_to] = NO_PIECE
            color[c.king_from] = color[c.rook_from] = side
            piece[c.king_from], piece[c.rook_from] = KING, ROOK
            self.king[side] = frm
            return
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
        elif m & EP:
            cap_sq = self._ep_victim(1) if self.data.ep_by_history else \
                to - 8 if side == WHITE else to + 8
            color[cap_sq] = xside
            piece[cap_sq] = PAWN

    def ep_victim(self) -> int:
        """The square of the pawn an en passant capture takes now (NO_SQUARE without an en
        passant square): the one that just passed it."""
        if self.ep == NO_SQUARE:
            return NO_SQUARE
        if self.data.ep_by_history:
            return self._ep_victim(1)
        return self.ep + 8 if self.side == BLACK else self.ep - 8

    def _ep_victim(self, back: int) -> int:
        """The pawn an en passant capture takes, where it need not stand beside the square
        passed (Berolina): the last double step's to-square, ``back`` entries down the history
        (the FEN's, before the first move)."""
        if len(self.hist) >= back:
            return (self.hist[-back][0] >> 6) & 63
        return self.root_ep_victim

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

    def uci(self, m: int, chess960: bool | None = None) -> str:
        """A move in UCI: castling as the king's move (e1g1), or with ``chess960`` (default:
        ``chess960_notation``) as the king taking its own rook (e1h1). The letter of a promotion
        is the variant's."""
        if chess960 is None:
            chess960 = self.chess960_notation
        if m & CASTLE and chess960:
            frm, to = m & 63, (m >> 6) & 63
            return SQUARE_NAMES[frm] + SQUARE_NAMES[self.castle_by_king_to[to].rook_from]
        promo = m >> 18
        if promo and self.variant is not CHESS:
            return SQUARE_NAMES[m & 63] + SQUARE_NAMES[(m >> 6) & 63] + \
                self.variant.by_code[promo].letter
        return move_uci(m)

    def parse_uci(self, text: str) -> int:
        """The legal move written ``text`` (``e2e4``, ``e7e8q``, ``e1g1``, or castling as the king
        taking its rook, ``e1h1``); ValueError if none. A castling written as the king's move
        is taken only where no other move is written so."""
        legal = self.legal_moves()
        for chess960 in (self.chess960_notation, not self.chess960_notation):
            for m in legal:
                if self.uci(m, chess960) == text:
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
