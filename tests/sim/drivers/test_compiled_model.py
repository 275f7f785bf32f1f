"""The compiled models' base (sim.drivers.compiled_model): the signature table is the list of
entry points a library must have, each declared as the table says; the handle is destroyed once,
and a closed model refuses use in one line instead of handing the entry a null handle (a crash).
On the generator's model, which the suite builds anyway."""

import pytest

from posdata.engine.rules.board import Board
from posdata.sim.drivers.compiled_model import CompiledModel, u64, vp
from posdata.sim.drivers.gen_cxxrtl import CxxrtlGenerator
from posdata.sim.models.cxxrtl import build_library
from posdata.sim.models.toolchain import ToolchainError


@pytest.fixture(scope="module")
def library():
    return build_library(verbose=False)


class Clocks(CompiledModel):
    """The generator's model seen through one function of its entry."""

    MODEL = "a clock counter"
    SIGNATURES = {"posdata_clocks": ([vp], u64)}


def test_the_table_declares_the_signatures(library):
    with Clocks(library) as model:
        assert model.lib.posdata_clocks.argtypes == [vp]
        assert model.lib.posdata_clocks.restype is u64
        assert model.lib.posdata_create.restype is vp
        assert model.lib.posdata_destroy.restype is None
        assert model.lib.posdata_clocks(model.handle) == 0  # a new model has run no clock


def test_an_entry_point_missing_from_the_library_is_refused_by_name(library):
    class Wider(Clocks):
        SIGNATURES = {**Clocks.SIGNATURES, "posdata_no_such_function": ([vp], None)}

    with pytest.raises(ToolchainError) as e:
        Wider(library)
    message = str(e.value)
    assert len(message.splitlines()) == 1, message
    assert f"{library} is not a clock counter: it has no posdata_no_such_function" in message


def test_close_twice_and_after_a_failed_constructor_is_harmless(library):
    model = Clocks(library)
    model.close()
    model.close()
    unfinished = Clocks.__new__(Clocks)  # as __del__ finds a constructor that raised early
    unfinished.close()


def test_a_closed_model_refuses_use(library):
    with CxxrtlGenerator(library=library) as generator:
        assert generator.generate(Board()).moves
    with pytest.raises(ValueError, match=r"^the compiled \(CXXRTL\) move generator is closed$"):
        generator.generate(Board())
    with pytest.raises(ValueError, match="is closed"):
        generator.clocks
