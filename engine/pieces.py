"""Piece definitions: a small notation for leapers and riders on 8x8, after Betza's funny notation.

Ref: Ralph Betza, "Betza's funny notation" (atoms W, F, D, A, N; a doubled atom is its rider;
K, R, B, Q as shorthands), as used by Fairy-Stockfish's custom pieces. Only the part that
posdata can encode is accepted.

Atoms (a leap of (x, y) squares, in all eight symmetric directions):

    W (1, 0) wazir     F (1, 1) ferz     D (2, 0) dabbaba     A (2, 2) alfil     N (2, 1) knight

A doubled atom is a rider: it repeats its leap along the same line until the edge or the first
occupied square (WW rook, FF bishop, NN nightrider, DD, AA). Shorthands: ``K`` = ``WF`` (king),
``R`` = ``WW``, ``B`` = ``FF``, ``Q`` = ``RB``. A definition is a compound of components written
one after another, optionally joined by ``+``: ``QN`` (amazon), ``R+N`` (chancellor), ``NN``.

Generation order: components in the order written, each atom's directions in GNU Chess's order
(``engine.defs.DIRECTIONS``: W east, north, west, south; F north-west, north-east, south-east,
south-west; N as GNU's knight), a rider's squares near to far. So ``K``, ``R``, ``B``, ``Q`` and
``N`` give exactly the orthodox tables.

What posdata cannot hold, and so the parser refuses:

* A compound whose components reach the same square from the same square (``RW``: a wazir step
  inside a rook's ride; ``RD``: a dabbaba leap inside it; ``NNN``). posdata keeps one successor
  per (from, to), so a square can sit on one line of a walk only.
* Multi-leg movers (hoppers such as the grasshopper, lame leapers such as the xiangqi horse),
  divergent pieces (moving and capturing differently), range-limited riders and asymmetric
  pieces: the notation has no words for them. (The attack test relies on symmetry: a piece on
  ``t`` attacks ``s`` iff the same piece on ``s`` reaches ``t``.)
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


_KIND_OF = {("W", True): AttackKind.ORTHOGONAL_RIDER, ("F", True): AttackKind.DIAGONAL_RIDER,
            ("N", False): AttackKind.KNIGHT_LEAPER, ("N", True): AttackKind.KNIGHT_RIDER,
            ("W", False): AttackKind.WAZIR_STEP, ("F", False): AttackKind.FERZ_STEP,
            ("D", False): AttackKind.DABBABA_LEAPER, ("A", False): AttackKind.ALFIL_LEAPER,
            ("D", True): AttackKind.DABBABA_RIDER, ("A", True): AttackKind.ALFIL_RIDER}
#: per attack kind, the definition of the super-piece that finds its attackers from the target
KIND_DEFINITION = {kind: atom * (2 if rider else 1) for (atom, rider), kind in _KIND_OF.items()}
KIND_DEFINITION[AttackKind.KING_STEP] = "K"


@dataclass(frozen=True)
class Component:
    atom: str     #: W, F, D, A or N
    rider: bool   #: repeats its leap along the line

    @property
    def text(self) -> str:
        return self.atom * (2 if self.rider else 1)


@dataclass(frozen=True)
class PieceMoves:
    """A parsed definition: its components in generation order."""
    text: str
    components: tuple[Component, ...]

    def rays(self, frm: int) -> list[list[int]]:
        """The rays from ``frm`` on an empty board, in generation order; rays that leave the
        board at once are dropped. A leaper's every target is a ray of one square."""
        return component_rays(self.components, frm)

    @property
    def attack_kinds(self) -> AttackKind:
        kinds = AttackKind(0)
        for c in self.components:
            kinds |= _KIND_OF[c.atom, c.rider]
        steps = AttackKind.WAZIR_STEP | AttackKind.FERZ_STEP
        if kinds & steps == steps:
            kinds = kinds & ~steps | AttackKind.KING_STEP
        return kinds

    @property
    def riders(self) -> bool:
        return any(c.rider for c in self.components)


def component_rays(components, frm: int) -> list[list[int]]:
    f0, r0 = frm & 7, frm >> 3
    out = []
    for c in components:
        for df, dr in ATOM_STEPS[c.atom]:
            ray, f, r = [], f0 + df, r0 + dr
            while 0 <= f < 8 and 0 <= r < 8:
                ray.append(r * 8 + f)
                if not c.rider:
                    break
                f, r = f + df, r + dr
            if ray:
                out.append(ray)
    return out


@cache
def parse_piece(text: str) -> PieceMoves:
    """Parse a definition (``"QN"``, ``"R+N"``, ``"NN"``); PieceError if it is not one, or if
    posdata cannot encode it."""
    if not isinstance(text, str) or not text.strip():
        raise PieceError(f"empty piece definition: {text!r}")
    spelled = text.replace("+", "").replace(" ", "")
    if not spelled:
        raise PieceError(f"empty piece definition: {text!r}")
    expanded = "".join(SHORTHANDS.get(ch, ch) for ch in spelled)
    components = []
    i = 0
    while i < len(expanded):
        atom = expanded[i]
        if atom not in ATOM_STEPS:
            raise PieceError(f"piece definition {text!r}: unknown atom {atom!r} (known: "
                             f"{', '.join(ATOM_STEPS)}, shorthands {', '.join(SHORTHANDS)})")
        rider = i + 1 < len(expanded) and expanded[i + 1] == atom
        components.append(Component(atom, rider))
        i += 2 if rider else 1
    _check_one_line_per_square(text, components)
    return PieceMoves(text, tuple(components))


def _check_one_line_per_square(text: str, components: list[Component]) -> None:
    """Refuse a compound two of whose components reach the same square from the same square."""
    for frm in range(64):
        owner = {}
        for c in components:
            for ray in component_rays([c], frm):
                for u in ray:
                    if u in owner:
                        raise PieceError(
                            f"piece definition {text!r} cannot be encoded: {owner[u].text} and "
                            f"{c.text} both reach {SQUARE_NAMES[u]} from {SQUARE_NAMES[frm]} "
                            f"(posdata holds one successor per square)")
                    owner[u] = c
