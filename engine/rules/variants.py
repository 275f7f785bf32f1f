"""The variants, in one place: each names its pieces (code, FEN letter, moves in
``engine.rules.pieces``' notation, value), its start position, its promotions per colour and its
castling. Everything else (tables, FEN letters, attack kinds, material limits) is derived.

Ref: Fairy-Stockfish's variants (its ``variant.cpp``, checked through pyffish 0.0.90): the same
names (``chess960`` is its ``fischerandom``), letters, start positions and promotion sets, so that
its FENs can be pasted in.

Piece codes (3 bits on the board, ``engine.rules.defs``): 1 is the pawn and 6 the king in every
variant; 2..5 and 7 hold the other pieces. A code means one piece kind within a variant, for both
colours (chigorin gives White the chancellor, code 7, and Black the queen, code 5).

**What the gateware needs, per variant** (all plain data, from this module):

* ``variant.tables()``: ``(nextpos, nextdir)``, 8 x 64 x 64 uint8 each, the ROM image.
* ``variant.table_index(colour, code)``: which of the 8 tables a piece walks, its ptype
  (``engine.rules.defs.ptype``): the code itself, except a black pawn's, table 0 (BPAWN). So a piece
  on code 7 (chigorin's chancellor) walks table 7, which orthodox chess leaves empty. The tables are
  stored in this order, the order the gateware's ROM holds them in.
* ``variant.promotions[colour]``: the promotion pieces in generation order (orthodox: Q R B N).
* ``variant.table_attacks[t]`` / ``variant.attack_kinds(colour, code)``: the attack kinds
  (``engine.rules.pieces.AttackKind``) of a table, the planes the legality unit needs.
* castling: per position, not per variant (Chess960): ``engine.rules.board.Board.castles[colour]``
  lists the ``engine.rules.defs.Castle`` records the FEN allowed, king side first: king and rook
  from/to squares, the squares that must be empty and those the king crosses.
"""

from collections import Counter
from dataclasses import dataclass, field
from functools import cache

from .defs import BISHOP, BLACK, BPAWN, KING, KNIGHT, PAWN, QUEEN, ROOK, START_FEN, WHITE, ptype
from .pieces import AttackKind, parse_piece

CHANCELLOR = 7  #: chigorin's extra piece takes the one free code
GRASSHOPPER = 7  #: so does the grasshopper
#: the pawn of shatranj, makruk and grasshopper chess: no double step, so no en passant
SINGLE_STEP_PAWN = "fmWfcF"


class VariantError(ValueError):
    """An unknown variant name; one line."""


@dataclass(frozen=True)
class PieceType:
    code: int
    letter: str  #: lower case in the FEN for black, upper case for white
    name: str
    moves: str | None  #: engine.rules.pieces notation; None for the pawn (its threads are built in)
    value: int  #: centipawns, for the search's evaluation


@dataclass(frozen=True)
class Variant:
    name: str
    fsf_name: str  #: Fairy-Stockfish's name (UCI_Variant accepts both)
    description: str
    pieces: tuple[PieceType, ...]
    start_fen: str
    #: per colour, the promotion pieces in generation order
    promotions: tuple[tuple[int, ...], tuple[int, ...]]
    #: castling from any king and rook squares (Shredder-FEN/X-FEN rights), else only e/a/h
    chess960: bool = False
    #: the pawn in engine.rules.pieces' notation (its ``i`` moves: the double step from the home
    #: rank, ``e``: en passant); None: the orthodox pawn's two threads, Sandström's tables
    pawn: str | None = None
    #: a pawn promotes on reaching this rank (0-based, as White counts; Black's mirrors it) or
    #: beyond: 7 is the last rank, makruk's 5 is its sixth
    promotion_rank: int = 7
    #: Fairy-Stockfish's extinction rule of shatranj: a side left with its bare king loses,
    #: unless it bares the other king on its move; the game's end has no moves
    bare_king: bool = False
    #: makruk's counting, in the FEN as Fairy-Stockfish writes it (engine.rules.counting)
    counting: bool = False
    by_code: dict = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self):
        object.__setattr__(self, "by_code", {p.code: p for p in self.pieces})

    # --- tables ----------------------------------------------------------------------------

    @staticmethod
    def table_index(color: int, code: int) -> int:
        """The table a piece walks: its ptype, the same rule in every variant."""
        return ptype(color, code)

    @property
    def layout(self) -> tuple:
        """What each of the 8 tables holds, for ``engine.rules.posdata.build_tables``. A piece
        with modes is listed by its definition (its moves are walks:
        ``engine.rules.posdata.piece_walks``), a pawn with modes by its own."""
        layout = [None] * 8
        for p in self.pieces:
            if p.code == PAWN:
                layout[PAWN], layout[BPAWN] = (self.pawn,) * 2 if self.pawn else (PAWN, BPAWN)
            else:
                layout[self.table_index(WHITE, p.code)] = p.moves
        return tuple(layout)

    @property
    def plain_layout(self) -> tuple:
        """``layout`` with the pieces that walk with modes left out: what Sandström's (from, to)
        tables hold."""
        pawn_tables = (PAWN, BPAWN) if self.pawn else ()
        return tuple(None if t in pawn_tables or isinstance(what, str)
                     and not parse_piece(what).plain else what
                     for t, what in enumerate(self.layout))

    def tables(self):
        """``(nextpos, nextdir)``: 8 x 64 x 64 uint8 arrays, read-only, built once. A variant
        with modes has none (VariantError): its walks are not (from, to) tables."""
        from .posdata import build_tables
        if self.has_modes:
            raise VariantError(f"{self.name}'s pieces walk with modes: Sandström's (from, to) "
                               f"tables cannot hold them")
        return build_tables(self.layout)

    # --- attack kinds ----------------------------------------------------------------------

    def attack_kinds(self, color: int, code: int) -> AttackKind:
        """The gateware's view: the planes its captures fall into (a piece with modes: its
        capturing components', ``PieceMoves.plane_kinds``; WALKED where no plane holds them)."""
        if code == PAWN:
            return parse_piece(self.pawn, pawn=True).plane_kinds if self.pawn else AttackKind.PAWN
        moves = parse_piece(self.by_code[code].moves)
        return moves.attack_kinds if moves.plain else moves.plane_kinds

    # --- modes -----------------------------------------------------------------------------

    def moded(self, code: int) -> bool:
        """Does the piece walk with modes (engine.rules.pieces), not Sandström's tables?"""
        if code == PAWN:
            return self.pawn is not None
        return not parse_piece(self.by_code[code].moves).plain

    @property
    def has_modes(self) -> bool:
        """Some piece walks with modes: the (from, to) tables cannot hold the variant."""
        return any(self.moded(p.code) for p in self.pieces)

    @property
    def ep_pair(self) -> bool:
        """Fairy-Stockfish writes the en passant field of a pawn defined in its notation as the
        square passed and the pawn's own square (``c3b4``), after every double step."""
        return self.pawn is not None

    @property
    def table_attacks(self) -> tuple[AttackKind | None, ...]:
        """Per table, its attack kinds; None for an empty table."""
        out = [None] * 8
        for p in self.pieces:
            for color in (WHITE, BLACK):
                out[self.table_index(color, p.code)] = self.attack_kinds(color, p.code)
        return tuple(out)

    # --- letters and armies ----------------------------------------------------------------

    def letter(self, color: int, code: int) -> str:
        ch = self.by_code[code].letter
        return ch.upper() if color == WHITE else ch

    @property
    def fen_letters(self) -> dict[str, tuple[int, int]]:
        """FEN letter -> (colour, code)."""
        return {self.letter(c, p.code): (c, p.code) for p in self.pieces for c in (WHITE, BLACK)}

    def start_army(self, color: int) -> Counter:
        """Per code, how many pieces ``color`` starts with."""
        placement = self.start_fen.split()[0]
        letters = self.fen_letters
        return Counter(letters[ch][1] for ch in placement
                       if ch in letters and letters[ch][0] == color)


def _piece(code, letter, name, moves, value):
    return PieceType(code, letter, name, moves, value)


# Values: orthodox as engine.search.eval always had them; the fairy pieces by common estimates
# (chancellor a little under a queen, amazon about queen + knight less the overlap of their
# roles, nightrider between a minor piece and a rook on 8x8).
PAWN_T = _piece(PAWN, "p", "pawn", None, 100)
KNIGHT_T = _piece(KNIGHT, "n", "knight", "N", 320)
BISHOP_T = _piece(BISHOP, "b", "bishop", "B", 330)
ROOK_T = _piece(ROOK, "r", "rook", "R", 500)
QUEEN_T = _piece(QUEEN, "q", "queen", "Q", 900)
KING_T = _piece(KING, "k", "king", "K", 0)
ORTHODOX = (PAWN_T, KNIGHT_T, BISHOP_T, ROOK_T, QUEEN_T, KING_T)
ORTHODOX_PROMOTIONS = (QUEEN, ROOK, BISHOP, KNIGHT)

VARIANTS = (
    Variant("chess", "chess", "orthodox chess", ORTHODOX, START_FEN,
            (ORTHODOX_PROMOTIONS, ORTHODOX_PROMOTIONS)),
    Variant("chess960", "fischerandom",
            "Chess960: any of the 960 start positions, castling to the g/c files",
            ORTHODOX, START_FEN, (ORTHODOX_PROMOTIONS, ORTHODOX_PROMOTIONS), chess960=True),
    Variant("amazon", "amazon", "the queen moves as queen + knight (A)",
            (PAWN_T, KNIGHT_T, BISHOP_T, ROOK_T, _piece(QUEEN, "a", "amazon", "QN", 1250),
             KING_T),
            "rnbakbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBAKBNR w KQkq - 0 1",
            ((QUEEN, ROOK, BISHOP, KNIGHT),) * 2),
    Variant("almost", "almost", "the queen is replaced by a chancellor, rook + knight (C)",
            (PAWN_T, KNIGHT_T, BISHOP_T, ROOK_T, _piece(QUEEN, "c", "chancellor", "RN", 880),
             KING_T),
            "rnbckbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBCKBNR w KQkq - 0 1",
            ((QUEEN, ROOK, BISHOP, KNIGHT),) * 2),
    Variant("chigorin", "chigorin",
            "White: a chancellor (C) and four knights; Black: a queen and four bishops",
            ORTHODOX + (_piece(CHANCELLOR, "c", "chancellor", "RN", 880),),
            "rbbqkbbr/pppppppp/8/8/8/8/PPPPPPPP/RNNCKNNR w KQkq - 0 1",
            ((CHANCELLOR, ROOK, KNIGHT), (QUEEN, ROOK, BISHOP))),
    Variant("nightrider", "nightrider", "knights are nightriders, riding knight leaps (N)",
            (PAWN_T, _piece(KNIGHT, "n", "nightrider", "NN", 450), BISHOP_T, ROOK_T, QUEEN_T,
             KING_T),
            START_FEN, (ORTHODOX_PROMOTIONS, ORTHODOX_PROMOTIONS)),
    # Muller's legs: walks with modes (engine.rules.pieces)
    Variant("grasshopper", "grasshopper",
            "a row of grasshoppers (G) before the pawns, which make no double step",
            ORTHODOX + (_piece(GRASSHOPPER, "g", "grasshopper", "gQ", 180),),
            "rnbqkbnr/gggggggg/pppppppp/8/8/PPPPPPPP/GGGGGGGG/RNBQKBNR w KQkq - 0 1",
            ((QUEEN, ROOK, BISHOP, KNIGHT, GRASSHOPPER),) * 2, pawn=SINGLE_STEP_PAWN),
    Variant("hoppelpoppel", "hoppelpoppel",
            "the knight captures as a bishop (N: mNcB), the bishop as a knight (B: mBcN)",
            (PAWN_T, _piece(KNIGHT, "n", "knibis", "mNcB", 330),
             _piece(BISHOP, "b", "biskni", "mBcN", 320), ROOK_T, QUEEN_T, KING_T),
            START_FEN, (ORTHODOX_PROMOTIONS, ORTHODOX_PROMOTIONS)),
    Variant("berolina", "berolina",
            "pawns move diagonally forward and capture straight ahead (fmFifmnAfceW)",
            ORTHODOX, START_FEN, (ORTHODOX_PROMOTIONS, ORTHODOX_PROMOTIONS),
            pawn="fmFifmnAfceW"),
    Variant("shatranj", "shatranj",
            "the old game: alfil (B: A), ferz (Q: F), pawns of one step promote to a ferz; a "
            "bare king loses",
            (PAWN_T, KNIGHT_T, _piece(BISHOP, "b", "alfil", "A", 150), ROOK_T,
             _piece(QUEEN, "q", "ferz", "F", 150), KING_T),
            "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1",
            ((QUEEN,), (QUEEN,)), pawn=SINGLE_STEP_PAWN, bare_king=True),
    Variant("makruk", "makruk",
            "Thai chess: khon (S: FfW), met (M: F), pawns on the third rank promote to a met "
            "on the sixth",
            (PAWN_T, KNIGHT_T, _piece(BISHOP, "s", "khon", "FfW", 250), ROOK_T,
             _piece(QUEEN, "m", "met", "F", 150), KING_T),
            "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1",
            ((QUEEN,), (QUEEN,)), pawn=SINGLE_STEP_PAWN, promotion_rank=5, counting=True),
    Variant("pawnsideways", "pawnsideways", "pawns may also step sideways (fsmWifmnDfceF)",
            ORTHODOX, START_FEN, (ORTHODOX_PROMOTIONS, ORTHODOX_PROMOTIONS),
            pawn="fsmWifmnDfceF"),
)

BY_NAME = {v.name: v for v in VARIANTS}
CHESS = BY_NAME["chess"]
VARIANT_NAMES = tuple(BY_NAME)
_ALIASES = {v.fsf_name: v for v in VARIANTS}


#: Fairy-Stockfish's variants that posdata refuses, and why (one line each)
REFUSED = {
    "spartan": "spartan gives Black two kings (losing one is no loss) and an army of its own, "
               "hoplites, lieutenants, generals, captains and a warlord: posdata's board holds "
               "one king per side and 3-bit piece codes that mean one kind for both colours",
}


def get_variant(name) -> Variant:
    """A variant by its name or Fairy-Stockfish's (a Variant passes through)."""
    if isinstance(name, Variant):
        return name
    variant = BY_NAME.get(name) or _ALIASES.get(name)
    if variant is None and name in REFUSED:
        raise VariantError(f"variant {name!r} is refused: {REFUSED[name]}")
    if variant is None:
        raise VariantError(f"unknown variant {name!r} (known: {', '.join(VARIANT_NAMES)})")
    return variant


@cache
def _checked(variant: Variant) -> Variant:
    """The registry's own invariants (run once per variant on first use)."""
    codes = [p.code for p in variant.pieces]
    assert len(set(codes)) == len(codes) and all(1 <= c <= 7 for c in codes)
    assert variant.by_code[PAWN].moves is None and variant.by_code[KING].moves == "K"
    if variant.pawn is not None:
        parse_piece(variant.pawn, pawn=True)
    letters = [p.letter for p in variant.pieces]
    assert len(set(letters)) == len(letters)
    for p in variant.pieces:
        if p.moves is not None:
            parse_piece(p.moves)
    return variant


for _v in VARIANTS:
    _checked(_v)
