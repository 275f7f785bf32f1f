"""What every compiled model's driver does the same way: load the shared library (through
sim.models.library.load_model, which refuses in one line a library that would crash the process
or be read wrongly), give its C functions their ctypes signatures from one table, hand it its
memory image (sim.models.memory_images), create the model's handle and destroy it once.

A driver names its functions' prefix (``posdata_chip_``: its entry's ``create`` and ``destroy``
are ``posdata_chip_create`` and ``posdata_chip_destroy``) and the signatures of the others, and
calls them as ``self.lib.<name>(self.handle, ...)``."""

import ctypes

from ..models import memory_images
from ..models.cache import open_private
from ..models.library import load_model
from ..models.toolchain import ToolchainError

u32, u64, i32, vp = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int32, ctypes.c_void_p


def pointer(ctype):
    return ctypes.POINTER(ctype)


class CompiledModel:
    """One model instance in a loaded library. ``handle`` refuses use once the model is closed
    (the C entry would dereference a null handle and take the process down)."""

    MODEL = "a compiled model"  #: what the library is, in messages
    PREFIX = "posdata_"         #: of the entry's functions
    #: name -> (argtypes, restype) of the entry's functions besides create and destroy (``None``:
    #: a void function)
    SIGNATURES: dict[str, tuple[list, type | None]] = {}
    CONTRACT = False  #: whether the entry states the hardware contract it was built against

    def __init__(self, library: str):
        create, destroy = f"{self.PREFIX}create", f"{self.PREFIX}destroy"
        signatures = {create: ([], vp), destroy: ([vp], None), **self.SIGNATURES}
        self.lib = load_model(library, self.MODEL, tuple(signatures), contract=self.CONTRACT)
        for name, (argtypes, restype) in signatures.items():
            function = getattr(self.lib, name)
            function.argtypes, function.restype = argtypes, restype
        self._destroy = getattr(self.lib, destroy)
        self._load_image(library)
        self._handle = getattr(self.lib, create)()

    def _load_image(self, library: str) -> None:
        """The library's memory contents, which a model copies when it is created
        (sim.models.memory_images): those of the image built with it."""
        if not hasattr(self.lib, "posdata_image_blocks"):
            return  # its memories are compiled in
        image = getattr(library, "image", None)
        if image is None:
            raise ToolchainError(f"{self.MODEL} at {library} loads its memories from an image, "
                                 f"and none came with it: build it with its design's "
                                 f"build_library (sim.models.cxxrtl)")
        try:
            with open(open_private(image), "rb") as f:
                data = f.read()
        except OSError as e:
            raise ToolchainError(f"cannot read the memory image {image}: "
                                 f"{e.strerror or e}") from None
        memory_images.load(self.lib, memory_images.read(data, image), self.MODEL)

    @property
    def handle(self) -> int:
        if self._handle is None:
            raise ValueError(f"{self.MODEL} is closed")
        return self._handle

    def close(self) -> None:
        """Destroy the model; again, or after a constructor that failed half way: nothing."""
        if getattr(self, "_handle", None):
            self._destroy(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()
