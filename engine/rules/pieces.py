"""Piece definitions: Betza's funny notation, as far as a posdata walk can hold it.

Ref: Ralph Betza, "Betza's funny notation" (atoms W, F, D, A, N; a doubled atom is its rider;
K, R, B, Q as shorthands), with the modifiers Fairy-Stockfish reads (its custom pieces).

Atoms (a leap of (x, y) squares, in all eight symmetric directions):

    W (1, 0) wazir     F (1, 1) ferz     D (2, 0) dabbaba     A (2, 2) alfil     N (2, 1) knight

A doubled atom is a rider: it repeats its leap along the same line until the edge or the first
occupied square (WW rook, FF bishop, NN nightrider, DD, AA); a number after an atom limits the
ride (``W3``, ``R4``; ``0`` is unlimited; a limit past ``7``, the board's longest ride, is
``7``). Shorthands: ``K`` = ``WF`` (king), ``R`` = ``WW``, ``B`` = ``FF``, ``Q`` = ``RB``. A
definition is a compound of components written one after another, optionally joined by ``+``
or spaces: ``QN`` (amazon), ``R+N`` (chancellor), ``NN``.

Modifiers, written before the atom they modify (a shorthand's atoms all take them):

* ``m`` moves only (to an empty square), ``c`` captures only; neither (or both): either;
* ``n`` lame: the leap's intermediate square must be empty (``nN``, the xiangqi horse: the
  orthogonal step first; ``nD``, ``nA``: the square between);
* ``p`` hops: a rider that must jump one piece (the screen) and then rides on beyond it (``pR``;
  the xiangqi cannon is ``mRcpR``); ``g`` the grasshopper: it lands just beyond the first piece
  on its line (``gQ``);
* directions ``f b l r`` (forward, backward, left, right, as White sees them; Black's are
  turned half round, its forward down the board), ``s`` = ``lr`` and ``v`` = ``fb``; a pair
  of ``f``/``b`` with ``l``/``r`` is one diagonal direction (``flF``); the directions given
  are the union of those written.
  A piece with directions is asymmetric: each colour walks its own table, as the pawns do;
* ``i`` and ``e``, in a pawn's definition only (``Variant.pawn``): ``i`` moves only from the
  pawn's home rank and is a double step (it sets the en passant square), ``e`` may capture en
  passant.

Generation order: components in the order written, each atom's directions in GNU Chess's order
(``engine.rules.defs.DIRECTIONS``: W east, north, west, south; F north-west, north-east, south-east,
south-west; N as GNU's knight), a rider's squares near to far. So ``K``, ``R``, ``B``, ``Q`` and
``N`` give exactly the orthodox tables.

**Walks.** A piece's moves from a square are one walk (``PieceMoves.walk``): entries of a square
and a mode (emit a quiet move on empty, a capture on an enemy, both, or neither: pass through),
each with two successors, one taken when its square is empty and one when it is occupied.
Sandström's rule is the case where every entry emits both and the successors are the next square
of the ray (nextpos) and the first of the next ray (nextdir); a hopper's screen search, a lame
leap's intermediate square and a move-only entry are the same walk with other modes and
successors. A square may appear more than once in a walk; every successor lies ahead.

A *plain* piece (no modifiers and no range limit) is what Sandström's (from, to) tables hold:
``rays``, ``attack_kinds`` and ``engine.rules.posdata.build_rows`` serve it, the orthodox pieces and
the older fairy pieces, unchanged.

What the notation refuses, each in one line naming why:

* A plain compound whose components reach the same square from the same square (``RW``, ``RD``,
  ``NNN``): posdata's (from, to) tables keep one successor per square. With modes, components
  that may emit the same move to one square are refused too (the move would be generated twice).
* Modifiers on atoms where they mean nothing here: ``n`` on a step or a rider, ``p``/``g`` on a
  leaper or with a range limit, ``i``/``e`` outside a pawn, ``s``/``v`` or a lone ``l``/``r`` on a
  knight (Betza's knight directions are ambiguous), directions that select nothing, and
  Betza's other letters (``j``, ``o``, ``a``, ``h``, ``z``, ...: multi-leg moves, virgin-only
  moves of pieces, cylinder boards), which a posdata walk does not hold.
"""

from dataclasses import dataclass
from enum import IntFlag
from functools import cache

from .defs import BISHOP, DIRECTIONS, KNIGHT, ROOK, SQUARE_NAMES


class PieceError(ValueError):
    """A definition the notation does not accept; the message is one line."""


#: per atom, its leap directions as (file step, rank step) in generation order
ATOM_STEPS = {
    "W": DIRECTIONS[ROOK],
    "F": DIRECTIONS[BISHOP],
    "N": DIRECTIONS[KNIGHT],
    "D": tuple((2 * df, 2 * dr) for df, dr in DIRECTIONS[ROOK]),
    "A": tuple((2 * df, 2 * dr) for df, dr in DIRECTIONS[BISHOP]),
}
SHORTHANDS = {"K": "WF", "R": "WW", "B": "FF", "Q": "WWFF"}


class AttackKind(IntFlag):
    """What a piece attacks with, as the gateware's legality unit sees it: one plane of pieces
    per kind. A king's two step atoms are one kind (KING_STEP), the others one kind per atom
    and mode."""
    ORTHOGONAL_RIDER = 1 << 0   #: WW (rook lines)
    DIAGONAL_RIDER = 1 << 1     #: FF (bishop lines)
    KNIGHT_LEAPER = 1 << 2      #: N
    KNIGHT_RIDER = 1 << 3       #: NN (nightrider lines)
    KING_STEP = 1 << 4          #: W and F together
    PAWN = 1 << 5               #: a pawn's capture thread (pawns only)
    WAZIR_STEP = 1 << 6         #: W without F
    FERZ_STEP = 1 << 7          #: F without W
    DABBABA_LEAPER = 1 << 8     #: D
    ALFIL_LEAPER = 1 << 9       #: A
    DABBABA_RIDER = 1 << 10     #: DD
    ALFIL_RIDER = 1 << 11       #: AA
    #: a capture no plane of pieces seen from the target holds (a lame leap, a cannon's hop, a
    #: range limit, directions other than forward): found only by following the piece's walk
    WALKED = 1 << 12
    FORWARD_WAZIR = 1 << 13     #: fW: one step straight ahead, as its colour sees the board
    HOP_ORTHOGONAL = 1 << 14    #: gR: over the first piece on a rook line, landing just beyond
    HOP_DIAGONAL = 1 << 15      #: gB: the same on a bishop line


_KIND_OF = {("W", True): AttackKind.ORTHOGONAL_RIDER, ("F", True): AttackKind.DIAGONAL_RIDER,
            ("N", False): AttackKind.KNIGHT_LEAPER, ("N", True): AttackKind.KNIGHT_RIDER,
            ("W", False): AttackKind.WAZIR_STEP, ("F", False): AttackKind.FERZ_STEP,
            ("D", False): AttackKind.DABBABA_LEAPER, ("A", False): AttackKind.ALFIL_LEAPER,
            ("D", True): AttackKind.DABBABA_RIDER, ("A", True): AttackKind.ALFIL_RIDER}
#: per attack kind, the definition of the super-piece that finds its attackers from the target
KIND_DEFINITION = {kind: atom * (2 if rider else 1) for (atom, rider), kind in _KIND_OF.items()}
KIND_DEFINITION[AttackKind.KING_STEP] = "K"


#: walk entry modes: emit a quiet move when the square is empty, a capture when it holds an
#: enemy; a pawn's double step (sets the en passant square) and its en passant capture
QUIET, CAPTURE, DOUBLE, EN_PASSANT = 1, 2, 4, 8
BOTH = QUIET | CAPTURE
_WHITE, _BLACK = 0, 1
_MODIFIERS = "mcnpgie"
_DIRECTION_LETTERS = "fblrsv"
#: Betza's letters a posdata walk does not hold, and why (the refusal's words)
_NOT_HELD = {
    "j": "multi-leg move ('j': must jump a square)",
    "o": "cylinder board ('o')",
    "a": "multi-leg move ('a': again)",
    "y": "multi-leg move ('y')",
    "t": "multi-leg move ('t')",
    "x": "multi-leg move ('x')",
    "h": "direction 'h' (half the directions)",
    "z": "crooked move ('z')",
    "q": "circular move ('q')",
    "k": "modifier 'k' (no walk entry has a mode for it)",
    "u": "modifier 'u' (no walk entry has a mode for it)",
    "d": "modifier 'd' (destroy own piece)",
}


@dataclass(frozen=True)
class Component:
    atom: str             #: W, F, D, A or N
    rider: bool           #: repeats its leap along the line
    limit: int = 0        #: a rider's most steps (0: to the edge)
    mode: int = BOTH      #: QUIET, CAPTURE or both (m, c)
    lame: bool = False    #: n: the leap's intermediate square must be empty
    hop: str = ""         #: "p" (hop a screen, ride on) or "g" (land just beyond it)
    initial: bool = False  #: i: from the home rank only, a double step (pawns)
    ep: bool = False      #: e: may capture en passant (pawns)
    dirs: str = ""        #: direction letters as written ("" = all)

    @property
    def plain(self) -> bool:
        """What Sandström's (from, to) tables hold: no modifier, no range limit."""
        return (self.mode == BOTH and not (self.lame or self.hop or self.initial or self.ep
                                           or self.dirs) and self.limit == 0)

    @property
    def symmetric_capture(self) -> bool:
        """It captures as a plain atom or rider does (whatever it moves like): its attack is
        symmetric, a super-piece walk from the target finds it."""
        return bool(self.mode & CAPTURE) and not (self.lame or self.hop or self.initial
                                                  or self.dirs) and self.limit == 0

    @property
    def discoverable(self) -> bool:
        """Its attack can appear when another piece moves off or onto a square (a rider's
        line, a lame leap's block, a hopper's screen): makemove's pin test does not see it
        unless it is a plain line rider."""
        return bool(self.mode & CAPTURE) and (self.rider or self.lame or bool(self.hop))

    @property
    def text(self) -> str:
        mods = ("m" if self.mode == QUIET else "c" if self.mode == CAPTURE else "") + \
            ("n" if self.lame else "") + self.hop + ("i" if self.initial else "") + \
            ("e" if self.ep else "")
        body = self.atom * (2 if self.rider and not self.limit else 1)
        return self.dirs + mods + body + (str(self.limit) if self.limit else "")

    def steps(self, color: int = _WHITE) -> tuple[tuple[int, int], ...]:
        """The leaps, in generation order, as ``color`` sees the board."""
        steps = _select_steps(self.atom, self.dirs)
        if color == _BLACK and self.dirs:  # turned half round, as GNU Chess's black pawn
            steps = tuple((-df, -dr) for df, dr in steps)
        return steps


@dataclass(frozen=True)
class Walk:
    """A piece's moves from one square: parallel tuples, one item per entry; a successor is an
    entry's index, ``len(squares)`` ends the walk."""
    squares: tuple[int, ...]
    modes: tuple[int, ...]
    on_empty: tuple[int, ...]     #: where to go on when the square is empty (nextpos)
    on_occupied: tuple[int, ...]  #: ... and when it is occupied (nextdir)

    def __len__(self) -> int:
        return len(self.squares)


@dataclass(frozen=True)
class PieceMoves:
    """A parsed definition: its components in generation order."""
    text: str
    components: tuple[Component, ...]

    @property
    def plain(self) -> bool:
        return all(c.plain for c in self.components)

    @property
    def asymmetric(self) -> bool:
        """Its moves depend on its colour (directions): one table per colour."""
        return any(c.dirs for c in self.components)

    def rays(self, frm: int) -> list[list[int]]:
        """The rays from ``frm`` on an empty board, in generation order; rays that leave the
        board at once are dropped. A leaper's every target is a ray of one square. (A plain
        piece's: modes are not rays.)"""
        return component_rays(self.components, frm)

    def walk(self, frm: int, color: int = _WHITE, home_rank: bool = False) -> Walk:
        """The walk from ``frm`` (``home_rank``: a pawn there may make its ``i`` moves)."""
        return build_walk(self.components, frm, color, home_rank)

    @property
    def attack_kinds(self) -> AttackKind:
        """The kinds of its components by geometry (atom and rider), modes aside."""
        return _kinds(self.components)

    @property
    def capture_kinds(self) -> AttackKind:
        """The kinds it captures with, when every capturing component is symmetric (else the
        attack test walks its moves: ``scanned``)."""
        return _kinds([c for c in self.components if c.mode & CAPTURE])

    @property
    def plane_kinds(self) -> AttackKind:
        """The kinds its captures fall into as planes of pieces seen from the target (the perft
        chip's legality unit): the symmetric captures' kinds, a forward ferz's (a pawn's
        capture thread) or forward wazir's, a grasshopper's hop along lines; WALKED for any
        other capture."""
        kinds = _kinds([c for c in self.components if c.symmetric_capture])
        for c in self.components:
            if not c.mode & CAPTURE or c.symmetric_capture:
                continue
            if c.lame or c.initial or c.limit:
                kinds |= AttackKind.WALKED
            elif c.hop == "g" and c.rider and c.atom in "WF" and not c.dirs:
                kinds |= AttackKind.HOP_ORTHOGONAL if c.atom == "W" else AttackKind.HOP_DIAGONAL
            elif not c.hop and not c.rider and c.dirs == "f" and c.atom in "WF":
                kinds |= AttackKind.FORWARD_WAZIR if c.atom == "W" else AttackKind.PAWN
            else:
                kinds |= AttackKind.WALKED
        return kinds

    @property
    def scanned(self) -> bool:
        """Its attack is not a super-piece walk's: the attack test follows its own walk."""
        return any(c.mode & CAPTURE and not c.symmetric_capture for c in self.components)

    @property
    def riders(self) -> bool:
        return any(c.rider for c in self.components)


def _kinds(components) -> AttackKind:
    kinds = AttackKind(0)
    for c in components:
        kinds |= _KIND_OF[c.atom, c.rider]
    steps = AttackKind.WAZIR_STEP | AttackKind.FERZ_STEP
    if kinds & steps == steps:
        kinds = kinds & ~steps | AttackKind.KING_STEP
    return kinds


def _select_steps(atom: str, dirs: str) -> tuple[tuple[int, int], ...]:
    steps = ATOM_STEPS[atom]
    if not dirs:
        return steps
    tests = {"f": lambda f, r: r > 0, "b": lambda f, r: r < 0,
             "l": lambda f, r: f < 0, "r": lambda f, r: f > 0,
             "s": lambda f, r: f != 0, "v": lambda f, r: r != 0}
    groups, i = [], 0
    while i < len(dirs):
        pair = dirs[i:i + 2]
        if len(pair) == 2 and (pair[0] in "fb" and pair[1] in "lr"
                               or pair[0] in "lr" and pair[1] in "fb"):
            groups.append(pair)
            i += 2
        else:
            groups.append(dirs[i])
            i += 1
    return tuple(s for s in steps if any(all(tests[ch](*s) for ch in g) for g in groups))


def _ray_squares(frm: int, df: int, dr: int, most: int) -> list[int]:
    out, f, r = [], (frm & 7) + df, (frm >> 3) + dr
    while 0 <= f < 8 and 0 <= r < 8 and len(out) < most:
        out.append(r * 8 + f)
        f, r = f + df, r + dr
    return out


def _lame_square(frm: int, df: int, dr: int) -> int:
    """The square a lame leap must find empty: one step along its longer leg first (the
    xiangqi horse), the middle square of a D or A leap."""
    sf = (df > 0) - (df < 0)
    sr = (dr > 0) - (dr < 0)
    if abs(df) > abs(dr):
        sr = 0
    elif abs(dr) > abs(df):
        sf = 0
    return frm + sr * 8 + sf


_END = -1  #: a ray's local successor: the first entry of the next ray


def _component_walk_rays(c: Component, frm: int, color: int, home_rank: bool) -> list[list]:
    """Per ray, its entries ``[square, mode, on_empty, on_occupied]`` with ray-local successors
    (``_END``: the next ray)."""
    if c.initial and not home_rank:
        return []
    mode = c.mode | (DOUBLE if c.initial else 0) | (EN_PASSANT if c.ep else 0)
    out = []
    for df, dr in c.steps(color):
        most = (c.limit or 7) if c.rider or c.hop else 1
        if c.hop:
            squares = _ray_squares(frm, df, dr, 7)
        else:
            squares = _ray_squares(frm, df, dr, most)
        if not squares:
            continue
        if c.hop == "g":  # H(u1) L(u2) H(u2) L(u3) ...: a screen at u_i lands on u_i+1
            ray = []
            for i in range(len(squares) - 1):
                last = i == len(squares) - 2
                ray.append([squares[i], 0, _END if last else len(ray) + 2, len(ray) + 1])
                ray.append([squares[i + 1], mode, _END, _END])
        elif c.hop == "p":  # H(u_i) then the ride beyond that screen, for each i
            ray = []
            for i in range(len(squares) - 1):
                beyond = squares[i + 1:]
                h = len(ray)
                after = h + 1 + len(beyond)
                last = i == len(squares) - 2
                ray.append([squares[i], 0, _END if last else after, h + 1])
                for j, u in enumerate(beyond):
                    ray.append([u, mode, _END if j == len(beyond) - 1 else h + 2 + j, _END])
        elif c.lame:
            ray = [[_lame_square(frm, df, dr), 0, 1, _END], [squares[0], mode, _END, _END]]
        else:
            ray = [[u, mode, i + 1 if i < len(squares) - 1 else _END, _END]
                   for i, u in enumerate(squares)]
        if ray:
            out.append(ray)
    return out


def build_walk(components, frm: int, color: int = _WHITE, home_rank: bool = False) -> Walk:
    rays = [ray for c in components
            for ray in _component_walk_rays(c, frm, color, home_rank)]
    squares, modes, on_empty, on_occupied = [], [], [], []
    base = 0
    for ray in rays:
        end = base + len(ray)
        for u, mode, e, o in ray:
            squares.append(u)
            modes.append(mode)
            on_empty.append(end if e == _END else base + e)
            on_occupied.append(end if o == _END else base + o)
        base = end
    return Walk(tuple(squares), tuple(modes), tuple(on_empty), tuple(on_occupied))


def component_rays(components, frm: int) -> list[list[int]]:
    out = []
    for c in components:
        for df, dr in c.steps():
            ray = _ray_squares(frm, df, dr, 7 if c.rider else 1)
            if ray:
                out.append(ray)
    return out


@cache
def parse_piece(text: str, pawn: bool = False) -> PieceMoves:
    """Parse a definition (``"QN"``, ``"R+N"``, ``"mNcB"``, ``"gQ"``); PieceError if it is not
    one, or if posdata cannot hold it. ``pawn``: a pawn's definition (``i`` and ``e`` allowed)."""
    if not isinstance(text, str):
        raise PieceError(f"empty piece definition: {text!r}")
    shown = _quoted(text)  # the definition in error lines
    if not text.strip():
        raise PieceError(f"empty piece definition: {shown}")
    spelled = text.replace("+", "").replace(" ", "")
    if not spelled:
        raise PieceError(f"empty piece definition: {shown}")
    components = []
    i = 0
    while i < len(spelled):
        mods = ""
        while i < len(spelled) and spelled[i].islower():
            mods += spelled[i]
            i += 1
        if i == len(spelled):
            raise PieceError(f"piece definition {shown}: unknown atom: the definition ends "
                             f"after the modifiers {_quoted(mods)}")
        atom = spelled[i]
        if atom not in ATOM_STEPS and atom not in SHORTHANDS:
            raise PieceError(f"piece definition {shown}: unknown atom {atom!r} (known: "
                             f"{', '.join(ATOM_STEPS)}, shorthands {', '.join(SHORTHANDS)})")
        i += 1
        atoms = SHORTHANDS.get(atom, atom)
        doubled = atom in ATOM_STEPS and i < len(spelled) and spelled[i] == atom
        if doubled:
            i += 1
        digits = ""
        while i < len(spelled) and spelled[i] in "0123456789":  # isdigit() takes '²', '٣' too
            digits += spelled[i]
            i += 1
        # a ride on the board takes 7 steps at most, so a larger limit is 7 (Fairy-Stockfish
        # takes R8 too); read on the text: int() refuses more than 4,300 digits
        significant = digits.lstrip("0")
        limit = None if not digits else 7 if len(significant) > 1 else min(int(significant or
                                                                                "0"), 7)
        j = 0
        while j < len(atoms):
            a = atoms[j]
            rider = j + 1 < len(atoms) and atoms[j + 1] == a
            j += 2 if rider else 1
            components.append(_component(shown, mods, a, rider or doubled, limit, pawn))
    _check_no_move_twice(shown, components)
    return PieceMoves(text, tuple(components))


def _component(shown, mods, atom, rider, limit, pawn) -> Component:
    def refuse(why):
        raise PieceError(f"piece definition {shown} cannot be held: {why}")
    for ch in mods:
        if ch in _NOT_HELD:
            refuse(f"{_NOT_HELD[ch]} is not a posdata walk")
        if ch not in _MODIFIERS + _DIRECTION_LETTERS:
            refuse(f"unknown modifier {ch!r}")
        if ch in "ie" and not pawn:
            refuse(f"{ch!r} is a pawn's modifier (its double step, en passant)")
    dirs = "".join(ch for ch in mods if ch in _DIRECTION_LETTERS)
    mode = (QUIET if "m" in mods else 0) | (CAPTURE if "c" in mods else 0) or BOTH
    hop = "".join(ch for ch in mods if ch in "pg")
    if limit is not None:
        if limit == 0:
            rider, limit = True, 0
        elif limit == 1:
            rider, limit = False, 0
        else:
            rider = True
    limit = limit or 0
    if len(hop) > 1:
        refuse("'p' and 'g' together")
    if hop and not rider:
        refuse(f"{hop!r} (a hopper) needs a rider, not the leaper {atom!r}")
    if hop and limit:
        refuse(f"{hop!r} (a hopper) with a range limit")
    if "n" in mods and (rider or atom in "WF"):
        refuse(f"'n' (lame) on {atom * (2 if rider else 1)!r}: only the leaps N, D and A "
               f"have a square to block")
    if "n" in mods and hop:
        refuse("'n' (lame) on a hopper")
    if "i" in mods and rider:
        refuse("'i' (a double step) on a rider")
    if atom == "N" and dirs and (any(ch in "sv" for ch in dirs) or _lone_lr(dirs)):
        refuse(f"the knight's direction {_quoted(dirs)} is ambiguous (Betza's narrow and wide "
               f"knight moves): write f, b, or fl, fr, bl, br")
    c = Component(atom, rider, limit, mode, "n" in mods, hop, "i" in mods, "e" in mods, dirs)
    if dirs and not c.steps():
        refuse(f"the directions {_quoted(dirs)} select no move of {atom!r}")
    return c


def _quoted(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut short: an error line quotes the input, not a megabyte of it."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} chars)"


def _cut(text: str, limit: int = 40) -> str:
    """``text`` cut short, unquoted (a component's own spelling)."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"


def _lone_lr(dirs: str) -> bool:
    """A lone l or r (not paired with f or b)."""
    for k, ch in enumerate(dirs):
        if ch in "lr":
            before = dirs[k - 1] if k else ""
            after = dirs[k + 1] if k + 1 < len(dirs) else ""
            if before not in ("f", "b") and after not in ("f", "b"):
                return True
    return False


def _check_no_move_twice(shown: str, components: list[Component]) -> None:
    """Refuse a compound two of whose components reach the same square from the same square
    with a mode in common (a plain compound: posdata's (from, to) tables keep one successor
    per square; with modes: the move would be generated twice)."""
    plain = all(c.plain for c in components)
    for color in (_WHITE, _BLACK):
        for frm in range(64):
            owner = {}
            for c in components:
                if c.hop:  # a hopper's targets are only reached past a screen
                    continue
                targets = {sq for ray in _component_walk_rays(c, frm, color, True)
                           for sq, mode, _, _ in ray if mode & BOTH}
                for u in targets:
                    for other in owner.get(u, ()):
                        if other.mode & c.mode & BOTH:
                            why = ("posdata holds one successor per square" if plain
                                   else "a move would be generated twice")
                            raise PieceError(
                                f"piece definition {shown} cannot be encoded: "
                                f"{_cut(other.text)} and {_cut(c.text)} "
                                f"both reach {SQUARE_NAMES[u]} from "
                                f"{SQUARE_NAMES[frm]} ({why})")
                    owner.setdefault(u, []).append(c)
            if not any(c.dirs for c in components):
                break
