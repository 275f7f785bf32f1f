"""A plain-Python model of the gateware's timing: which ROM entries the walker visits, what it
emits, and how many clock cycles a generation takes with ``moves.ready`` held high.

It reads the ROM image the gateware is built from (``hdl.rom``), not engine's generator, so it
is a second description of the hardware algorithm; the tests hold the simulated gateware to
its cycle count and engine.movegen to its moves.

Timing (hdl.movegen): 3 cycles until the first piece's first entry is presented (latch, piece
lookup + ROM B, queue), one cycle per entry the walker visits, three more per promoting pawn
move (four words from one square), one per castling move, and one to hand over the last word.
"""

from dataclasses import dataclass, field

from engine.defs import (CAPTURE, CASTLE, CASTLES, DOUBLE, EMPTY, EP, LAST_RANK, NO_SQUARE,
                         PAWN, PAWN_MOVE, PIECE_LETTERS, PROMO_SHIFT, PROMOTION, PROMOTION_ORDER,
                         SQUARE_NAMES, ptype)

START_CYCLES = 3   #: start -> first piece's first entry presented to ROM A
DRAIN_CYCLES = 1   #: the last word leaves the output register


@dataclass
class PieceAccount:
    square: int
    piece: int
    color: int
    entries: int = 0     #: ROM A entries the walker visited for this piece
    moves: int = 0       #: words emitted
    cycles: int = 0      #: clocks the walker spent on it

    @property
    def name(self) -> str:
        letter = PIECE_LETTERS[self.piece]
        return (letter.upper() if self.color == 0 else letter) + SQUARE_NAMES[self.square]


@dataclass
class Prediction:
    moves: list[int]
    cycles: int
    walk_entries: int          #: ROM A reads (one per clock of walking)
    start_entries: int         #: ROM B reads (one per piece)
    castles: int
    pieces: list[PieceAccount] = field(default_factory=list)

    @property
    def table_steps(self) -> int:
        """ROM entries visited, counting each piece's start entry."""
        return self.walk_entries + self.start_entries


def _rom():
    from hdl.rom import rom_address, rom_image  # the ROM image needs numpy only, not amaranth
    image = rom_image()

    def entry(pt, frm, u):
        w = image[rom_address(pt, frm, u)]
        return w & 63, w >> 6
    return entry


_entry = None


def predict(board) -> Prediction:
    global _entry
    if _entry is None:
        _entry = _rom()
    entry = _entry
    color, piece, side = board.color, board.piece, board.side
    xside = side ^ 1
    last_rank = LAST_RANK[side]
    moves: list[int] = []
    accounts: list[PieceAccount] = []
    promo_words = tuple(PAWN_MOVE | PROMOTION | p << PROMO_SHIFT for p in PROMOTION_ORDER)

    def emit_pawn(acct, frm, u, flags):
        if u >> 3 == last_rank:
            for w in promo_words:
                moves.append(frm | u << 6 | flags | w)
            acct.moves += 4
            acct.cycles += 3
        else:
            moves.append(frm | u << 6 | flags | PAWN_MOVE)
            acct.moves += 1

    for frm in range(64):
        if color[frm] != side:
            continue
        pt = ptype(side, piece[frm])
        acct = PieceAccount(frm, piece[frm], side)
        accounts.append(acct)
        first, d1 = entry(pt, frm, frm)
        if piece[frm] != PAWN:
            u = first
            while True:
                acct.entries += 1
                np_, nd = entry(pt, frm, u)
                c = color[u]
                if c != side:
                    moves.append(frm | u << 6 | (CAPTURE if c == xside else 0))
                    acct.moves += 1
                u = np_ if c == EMPTY else nd
                if u == frm:
                    break
        else:
            u, second = first, False
            while u != frm:  # push thread
                acct.entries += 1
                np_, _ = entry(pt, frm, u)
                if color[u] != EMPTY:
                    break
                emit_pawn(acct, frm, u, DOUBLE if second else 0)
                u, second = np_, True
            u = d1
            while u != frm:  # capture thread
                acct.entries += 1
                _, nd = entry(pt, frm, u)
                if color[u] == xside:
                    emit_pawn(acct, frm, u, CAPTURE)
                elif color[u] == EMPTY and u == board.ep and board.ep != NO_SQUARE:
                    moves.append(frm | u << 6 | CAPTURE | EP | PAWN_MOVE)
                    acct.moves += 1
                u = nd
        acct.cycles += acct.entries

    castles = 0
    for c in CASTLES[side]:
        if board.castle & c.right and all(color[s] == EMPTY for s in c.empty):
            moves.append(c.king_from | c.king_to << 6 | CASTLE)
            castles += 1
    walk = sum(a.entries for a in accounts)
    cycles = START_CYCLES + sum(a.cycles for a in accounts) + castles + DRAIN_CYCLES
    return Prediction(moves, cycles, walk, len(accounts), castles, accounts)

