"""posdata walk: a piece's walk drawn as text and as SVG (sim.views.walk), and its bad input."""

import xml.etree.ElementTree as ET

import pytest

from posdata.engine.rules.defs import SQUARE_NAMES, parse_square
from posdata.engine.rules.posdata import walk
from posdata.engine.rules.variants import CHESS, get_variant
from posdata.sim.cli import main
from posdata.sim.views.walk import WalkError, arrows, piece_walk, render_svg, render_text

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("variant, letter, square", [
    ("amazon", "A", "d4"), ("nightrider", "n", "b1"), ("chess", "K", "e1"), ("chess", "p", "e7"),
    ("chigorin", "C", "a1"), ("chess", "Q", "h8")])
def test_svg_numbers_the_walk_in_table_order(variant, letter, square, tmp_path):
    v = get_variant(variant)
    w = piece_walk(v, letter, parse_square(square))
    root = ET.fromstring(render_svg(w))
    squares = root.findall(f"{SVG}rect[@class='square']")
    assert sorted(r.get("data-square") for r in squares) == sorted(SQUARE_NAMES)
    numbers = root.findall(f"{SVG}text[@class='number']")
    assert [int(t.text) for t in numbers] == list(range(1, len(w.squares) + 1))
    assert [t.get("data-square") for t in numbers] == [SQUARE_NAMES[u] for u in w.squares]
    assert root.find(f"{SVG}text[@class='piece']").text == letter
    lines = root.findall(f"{SVG}line")
    assert [(ln.get("class"), ln.get("data-from"), ln.get("data-to")) for ln in lines] == [
        (kind, SQUARE_NAMES[a], SQUARE_NAMES[b]) for kind, a, b in arrows(w)]


def test_the_walk_is_the_table_s():
    """The numbered squares are exactly the empty-board walk of the table (orthodox: the ROM)."""
    for letter, code in (("N", 2), ("B", 3), ("R", 4), ("Q", 5), ("K", 6)):
        for frm in range(64):
            assert piece_walk(CHESS, letter, frm).squares == walk(code, frm)


def test_steps_and_jumps():
    w = piece_walk(CHESS, "R", parse_square("a1"))
    kinds = [(k, SQUARE_NAMES[a], SQUARE_NAMES[b]) for k, a, b in arrows(w)]
    assert kinds[0] == ("start", "a1", "b1")
    assert ("nextpos", "b1", "c1") in kinds and ("nextdir", "b1", "a2") in kinds
    assert ("nextdir", "a2", "a1") in kinds  # the last ray's jump ends the walk
    assert not any(k == "nextpos" and b == "a2" for k, _, b in kinds)  # a ray change is a jump


def test_text():
    text = render_text(piece_walk(get_variant("nightrider"), "N", parse_square("b1")))
    lines = text.splitlines()
    assert lines[0] == "nightrider: white nightrider (N, NN) on b1, table 2: 7 squares"
    board = {line[0]: line[3:].split() for line in lines[2:10]}
    assert board["1"] == [".", "N", ".", ".", ".", ".", ".", "."]
    assert board["2"][3] == "1" and board["3"][5] == "2" and board["4"][7] == "3"
    assert "ray  1: d2(1) -> f3(2) -> h4(3)  => a3(4)" in lines
    assert "ray  3: c3(5) -> d5(6) -> e7(7)  => b1 (end)" in lines
    pawn = render_text(piece_walk(CHESS, "p", parse_square("e7")))
    assert "push thread (nextpos):    e6(1) -> e5(2) -> e7 (end)" in pawn
    assert "capture thread (nextdir): f6(3) => d6(4) => e7 (end)" in pawn


def test_unknown_piece():
    with pytest.raises(WalkError, match="has no piece 'Q'"):
        piece_walk(get_variant("amazon"), "Q", 0)


def test_cli(tmp_path, capsys):
    svg = tmp_path / "a.svg"
    assert main(["walk", "--variant", "amazon", "--piece", "A", "--square", "d4",
                 "--svg", str(svg)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("amazon: white amazon (A, QN) on d4, table 5: 35 squares")
    assert ET.fromstring(svg.read_text()).tag == f"{SVG}svg"


@pytest.mark.parametrize("argv, word", [
    (["walk", "--variant", "shogi", "--piece", "K", "--square", "e1"], "unknown variant"),
    (["walk", "--variant", "amazon", "--piece", "Q", "--square", "e1"], "no piece 'Q'"),
    (["walk", "--piece", "K", "--square", "e9"], "not a square"),
    (["walk", "--piece", "K"], "--square"),
    (["walk", "--piece", "K", "--square", "e1", "--svg", "/nonexistent/x.svg"], "cannot write"),
])
def test_cli_bad_input(argv, word, capsys):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and word in err, err
