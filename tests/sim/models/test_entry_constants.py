"""The C++ entries see the hardware contract's values: the generated block, compiled by itself,
reports them back; the compiled chip model does too; a model compiled for another contract is
refused on load, naming the constant; and the model cache's key follows the generated text."""

import ctypes
import re

import pytest

from posdata.hdl.common import contract
from posdata.hdl.link.protocol import UART_FRAME_BITS
from posdata.sim.models import cxxrtl
from posdata.sim.models.entry_constants import check_contract, compiled_contract, contract_cxx
from posdata.sim.models.toolchain import ToolchainError, compile_shared, find_compiler

#: what the entries must be compiled with, read off the contract here (not through the generator)
EXPECTED = {"SQUARES": contract.SQUARES, "COLOR_BITS": contract.COLOR_BITS,
            "PHASES": len(contract.Phase), "EVERY_ENGINE": contract.EVERY_ENGINE,
            "UART_FRAME_BITS": UART_FRAME_BITS}


def compile_block(tmp_path, text: str, name: str = "block"):
    src = tmp_path / f"{name}.cc"
    src.write_text(text)
    lib = tmp_path / f"lib{name}.so"
    compile_shared(find_compiler(), ["-O0", "-std=c++14", "-shared", "-fPIC"], [], [str(src)],
                   str(lib), "the contract's block")
    return ctypes.CDLL(str(lib))


def test_compiled_block_reports_the_contract(tmp_path):
    lib = compile_block(tmp_path, contract_cxx())
    assert compiled_contract(lib) == EXPECTED
    check_contract(lib, "the block")  # and so it passes the drivers' check


def test_a_model_of_another_contract_is_refused(tmp_path):
    phases = len(contract.Phase)
    text = contract_cxx()
    assert f"POSDATA_PHASES = {phases};" in text
    lib = compile_block(tmp_path, text.replace(f"POSDATA_PHASES = {phases};",
                                               f"POSDATA_PHASES = {phases + 1};"))
    with pytest.raises(ToolchainError, match=f"POSDATA_PHASES is {phases + 1} there, "
                                             f"{phases} here"):
        check_contract(lib, "the tampered block")
    with pytest.raises(ToolchainError, match="POSDATA_COLOR_BITS is missing there"):
        check_contract(compile_block(tmp_path, "int unrelated = 1;\n", "none"), "a bare library")


def test_the_compiled_chip_reports_the_contract():
    from posdata.sim.drivers.chip_cxxrtl import ChipModel
    with ChipModel(verbose=False) as chip:
        assert compiled_contract(chip.lib) == EXPECTED


#: constants an entry may write as a number of its own, each for a reason
OWN_NUMBERS = {"DATA_BITS": "the board's line model carries bytes (8N1, checked against the "
                            "contract's frame by a static_assert)"}


def test_entries_keep_no_numbers_of_their_own():
    """A constant an entry spells as a bare number is a copy waiting to drift: its value comes
    from the generated block instead (POSDATA_...), unless listed above."""
    from importlib import resources
    own = {}
    for entry in resources.files("posdata.sim.models").iterdir():
        if entry.name.endswith(".cc"):
            for name in re.findall(r"constexpr\s+\w+\s+(\w+)\s*=\s*\d+u?\s*;",
                                   entry.read_text()):
                own[name] = entry.name
    assert set(own) <= set(OWN_NUMBERS), own


def test_the_cache_key_follows_the_generated_constants(monkeypatch):
    from posdata.sim.models import entry_constants
    params = {"engines": 1}
    before = cxxrtl.sources_key("chip", params)
    values = entry_constants.contract_values()
    monkeypatch.setattr(entry_constants, "contract_values",
                        lambda: {**values, "PHASES": values["PHASES"] + 1})
    assert cxxrtl.sources_key("chip", params) != before
