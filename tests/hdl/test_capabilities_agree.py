"""Where the gateware checks a variant itself, it agrees with the declaration
(engine.rules.capabilities) for every variant and for made-up ones that reach each refusal: the
generator's images (tables for Black's pieces that move by colour, the dense ROM's fields), the
perft chip's attack planes and engines, the Verilator model's tables, the boards' families. The
cheap parts (images, planes), not elaboration."""

import pytest

from posdata.engine.rules.capabilities import BY_KEY, CHIP_ATTACKS, refusal, runs_on
from posdata.engine.rules.variants import VARIANTS
from posdata.hdl.boards.synth_targets import BOARDS
from posdata.hdl.chip.chessboard import SUPPORTED_KINDS, UnsupportedVariant, check_chip
from posdata.hdl.image.variant import hardware_name, image_of
from posdata.hdl.image.walks import walk_image
from posdata.hdl.link.chip_frontend import check_board_variant
from tests.made_up_variants import COMMONER, DABBABA, FORWARD

#: every registered variant, and made-up ones each hdl check refuses
CASES = (*VARIANTS, FORWARD, DABBABA, COMMONER)


def refused(check, variant) -> str | None:
    try:
        check(variant)
    except (ValueError, UnsupportedVariant) as e:  # VariantError is a ValueError
        return str(e)
    return None


def generator_images(variant) -> None:
    """What the generator's ROMs are built from: the walk image, and without modes the dense
    image of Sandström's tables (hdl.image.variant's rule, uncached for made-up variants)."""
    walk_image(variant)
    if not variant.has_modes:
        from posdata.hdl.image.sparse import rom_words
        image_of(variant, rom_words(variant))


@pytest.mark.parametrize("variant", CASES, ids=lambda v: v.name)
def test_the_gateware_refuses_what_the_declaration_does(variant):
    for key, check in (("gen", generator_images), ("hw", check_chip)):
        said = refused(check, variant)
        assert (said is None) == (key in runs_on(variant)), (key, said)
        assert said == refusal(variant, key), (key, said)


def test_the_declaration_names_the_chip_s_planes():
    assert SUPPORTED_KINDS == CHIP_ATTACKS


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_the_verilator_model_and_the_board_take_what_the_declaration_does(variant):
    """The Verilator generator is built with chess's tables (hardware_name); an ECP5 board's
    front end refuses what the ``ecp5`` place does."""
    assert ("gen-verilator" in runs_on(variant)) == (hardware_name(variant) == "chess")
    said = refused(check_board_variant, variant)
    assert (said is None) == ("ecp5" in runs_on(variant)) and said == refusal(variant, "ecp5")


def test_every_board_family_is_a_place():
    """synth refuses a variant by the place its board's family names."""
    assert {board.family.name for board in BOARDS.values()} <= set(BY_KEY)
