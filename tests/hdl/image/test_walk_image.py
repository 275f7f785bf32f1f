"""The walk image (hdl.image.walks): Sandström's walks come out entry for entry as the dense
image's, and the image of every variant, followed by a plain interpreter of its words, makes the
reference's moves in the reference's order."""

import random

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import CAPTURE, CASTLE, EMPTY, EP, PAWN, PROMOTION, WHITE
from posdata.engine.rules.pieces import BOTH, DOUBLE, EN_PASSANT, QUIET
from posdata.engine.rules.pieces import CAPTURE as CAPTURE_MODE
from posdata.engine.rules.variants import VARIANTS, get_variant
from posdata.hdl.image.addressing import PAWN_TABLES
from posdata.hdl.image.dense import walk_order
from posdata.hdl.image.variant import variant_image
from posdata.hdl.image.walks import (
    PROMOTE,
    piece_walk_rows,
    walk_image,
    walk_tables,
    word_fields,
)

PLAIN = [v for v in VARIANTS if not v.has_modes]
MODED = [v for v in VARIANTS if v.has_modes]


@pytest.mark.parametrize("variant", PLAIN, ids=lambda v: v.name)
def test_sandstrom_s_walks_are_the_dense_image_entry_for_entry(variant):
    """The same walks at the same addresses; a piece's entries hold the same words and end
    bits, with mode BOTH and nextpos the next entry. (A pawn's last push leads on to its
    captures here, where the dense layout ends the thread and keeps the push count.)"""
    walks, dense = walk_image(variant), variant_image(variant).dense
    assert len(walks.entries) == dense.entries and walks.addr_bits == dense.addr_bits
    owner = {t: key for key, t in walks.tables.items()}
    for t in range(walks.table_count):
        color, code = owner[t]
        rows = piece_walk_rows(variant, color, code)
        for frm in range(64):
            first, base, _ = walks.starts[t * 64 + frm]
            start = dense.starts[t * 64 + frm]
            assert first == start & 63 and base == start >> 12 & (1 << dense.addr_bits) - 1
            n = len(rows[frm])
            squares = [walks.entries[a]["square"] for a in range(base, base + n)]
            assert squares == walk_order(variant_image(variant).words, t, frm)[0]
            if t in PAWN_TABLES:
                continue
            for a in range(base, base + n):
                e, w = walks.entries[a], dense.words[a]
                assert (e["nextpos"], e["nextdir"], e["dir_skip"]) == \
                    (w & 63, w >> 6 & 63, w >> 12), (t, frm, a)
                assert walks.ends[a] == dense.ends[a], (t, frm, a)
                assert e["mode"] == BOTH and e["pos_skip"] == (0 if walks.ends[a] & 1 else 1)


def image_moves(board, image) -> list[tuple[int, int, bool, bool]]:
    """The moves the image's words make, as (from, to, capture, promotes), promotions once,
    castling aside: Sandström's rule generalised, read from the packed words alone as the
    walker would: a square and its mode are known from the word (or start entry) before it."""
    fields = word_fields(image.skip_bits)
    words = image.words()
    out = []
    side, color, piece = board.side, board.color, board.piece

    def field(word, name):
        shift = 0
        for n, width in fields.items():
            if n == name:
                return word >> shift & (1 << width) - 1
            shift += width

    for sq in range(64):
        if color[sq] != side:
            continue
        t = image.tables[side, piece[sq]]
        u, a, mode = image.starts[t * 64 + sq]
        if u == sq:
            continue
        while True:
            w = words[a]
            promotes = bool(mode & PROMOTE)
            if color[u] == EMPTY:
                if mode & QUIET or (mode & EN_PASSANT and u == board.ep):
                    out.append((sq, u, not mode & QUIET, promotes))
                if image.ends[a] & 1:
                    break
                u, mode, a = field(w, "nextpos"), field(w, "np_mode"), a + field(w, "pos_skip")
            else:
                if color[u] == side ^ 1 and mode & CAPTURE_MODE:
                    out.append((sq, u, True, promotes))
                if image.ends[a] & 2:
                    break
                u, mode, a = field(w, "nextdir"), field(w, "nd_mode"), a + field(w, "dir_skip")
    return out


def reference_moves(board) -> list[tuple[int, int, bool, bool]]:
    out = []
    for m in board.moves():
        if m & CASTLE:
            continue
        move = (m & 63, m >> 6 & 63, bool(m & (CAPTURE | EP)), bool(m & PROMOTION))
        if not (m & PROMOTION and out and out[-1] == move):
            out.append(move)
    return out


#: per variant, a position with promotions of both colours to come (the start has none)
PROMOTING = "4k3/1P4P1/8/8/8/8/1p4p1/4K3 w - - 0 1"
PROMOTING_MAKRUK = "4k3/8/8/1P4P1/1p4p1/8/8/4K3 w - - 0 1"


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_the_image_makes_the_reference_s_moves(variant):
    """Random playouts of each variant: the image's moves, in order, are the reference's."""
    image = walk_image(variant)
    rng = random.Random(variant.name)
    checked = promotions = 0
    for game in range(8):
        fen = None if game % 2 else PROMOTING_MAKRUK if variant.name == "makruk" else PROMOTING
        board = Board(fen, variant)
        for _ in range(30):
            moves = image_moves(board, image)
            assert moves == reference_moves(board), board.fen()
            checked += 1
            promotions += sum(m[3] for m in moves)
            legal = board.legal_moves()
            if not legal:
                break
            board.makemove(rng.choice(legal))
    assert checked > 100 and promotions > 5


def test_asymmetric_pieces_walk_a_table_per_colour():
    tables = walk_tables("makruk")
    assert tables[WHITE, 3] == 3 and tables[1, 3] == 7  # the khon; table 7 was free
    assert tables[WHITE, PAWN] == 1 and tables[1, PAWN] == 0
    assert walk_image("makruk").table_count == 8
    # a hopper's walk skips on an empty square past its landing entries
    image = walk_image("grasshopper")
    assert max(e["pos_skip"] for e in image.entries) >= 2
    assert {e["mode"] for e in image.entries} >= {0, BOTH, QUIET, CAPTURE_MODE}
    assert {e["mode"] for e in walk_image("berolina").entries} >= {QUIET | DOUBLE,
                                                                    CAPTURE_MODE | EN_PASSANT}


@pytest.mark.parametrize("variant", MODED, ids=lambda v: v.name)
def test_the_walk_image_s_size(variant):
    """What the ROM would hold: entries within 2^addr_bits, words of the declared width."""
    image = walk_image(variant)
    assert 1 << image.addr_bits - 1 < len(image.entries) <= image.depth
    assert all(w < 1 << image.word_bits for w in image.words())
    assert get_variant(variant.name) is variant
