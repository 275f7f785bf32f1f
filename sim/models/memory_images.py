"""Memory contents loaded into a compiled model at run time, so that one compile serves every
variant of a geometry.

Variants of one ROM geometry elaborate to the same RTL but for memory contents
(tests/hdl/gen/test_hw_variants.py); CXXRTL writes those contents into the C++ as constant
arrays that a model's ``reset()`` copies into its memories, so each variant used to be a compile
of its own (about a minute for the perft chip). ``split`` takes the arrays out of the C++ (each
becomes a call that copies block ``k`` of the image loaded at run time) and returns them as the
memory image; the C++ left is the same for every variant of the geometry, and so is its
library (the cache keys it by the C++). The image is a small file beside the index
(sim.models.cxxrtl), written and read by ``write`` and ``read``; a driver hands it to the
library before it creates the model (``load``): CXXRTL copies memory contents only when a model
is constructed, and nothing resets one later.

Blocks are numbered in the order of the C++ text, which the RTL fixes; each block's width and
depth are compiled into the library too, so an image of another geometry is refused in one line
rather than loaded into the wrong memories.
"""

import ctypes
import re
import struct
from dataclasses import dataclass

from .toolchain import ToolchainError

#: one memory's initialisation as write_cxxrtl emits it in a ``reset()``: a constant array and
#: the copy into the memory (at an offset when the initialisation does not start at word 0)
_INIT = re.compile(
    r"^(?P<indent>\t*)static const value<(?P<bits>\d+)> (?P<name>mem_init_\d+)\[(?P<words>\d+)\] "
    r"\{\n(?P<data>.*?)\n\t*\};\n"
    r"\t*std::copy\(std::begin\((?P=name)\), std::end\((?P=name)\), "
    r"&(?P<memory>[\w.>-]+)\.data\[(?P<offset>\d+)\]\);$",
    re.M | re.S)
_VALUE = re.compile(r"value<\d+>\{([^}]*)\}")
#: where the loader's C++ goes: before the design's namespace, after the runtime's header
_DESIGN = "namespace cxxrtl_design {"
_MAGIC = b"posdata memory image 1\n"
CHUNK_BITS = 32  #: CXXRTL's chunk (cxxrtl::chunk_t is 32 bits wide)


@dataclass(frozen=True)
class Block:
    bits: int                   #: the memory's width
    words: int                  #: the words this initialisation writes
    chunks: tuple[int, ...]     #: word by word, each in CXXRTL's chunks, least significant first

    @property
    def chunks_per_word(self) -> int:
        return -(-self.bits // CHUNK_BITS)


def split(cxx: str) -> tuple[str, list[Block]]:
    """The model's C++ with every memory's contents taken out, and those contents (the image)."""
    blocks: list[Block] = []

    def take(match: re.Match) -> str:
        bits, words = int(match["bits"]), int(match["words"])
        chunks = [int(c.strip().rstrip("u"), 16) for value in _VALUE.findall(match["data"])
                  for c in value.split(",")]
        block = Block(bits, words, tuple(chunks))
        if len(chunks) != words * block.chunks_per_word:
            raise ToolchainError(f"the CXXRTL model's {match['name']} holds {len(chunks)} "
                                 f"chunks, not {words} words of {bits} bits: Yosys writes "
                                 f"memory contents in a form this loader does not read")
        k = len(blocks)
        blocks.append(block)
        return (f"{match['indent']}posdata_image::copy({k}, &{match['memory']}"
                f".data[{match['offset']}], {words});")

    body = _INIT.sub(take, cxx)
    if "mem_init_" in body:  # an initialisation the pattern missed would stay compiled in
        raise ToolchainError("the CXXRTL model initialises a memory in a form this loader "
                             "does not read (sim.models.memory_images)")
    if not blocks:
        return cxx, []
    at = body.index(_DESIGN)
    return body[:at] + loader_cxx(blocks) + "\n" + body[at:], blocks


def _loader_common(blocks: list[Block]) -> str:
    """What both simulators' loaders share: each block's shape (which the RTL fixes, so it is
    compiled in), the blocks loaded, and the C functions that load them."""
    shapes = ", ".join(f"{{{b.bits}u, {b.words}u}}" for b in blocks)
    return f"""// Memory contents, loaded at run time (sim.models.memory_images).
#include <cstdint>
#include <vector>
namespace posdata_image {{
struct Shape {{ uint32_t bits; uint64_t words; }};
static const Shape shapes[] = {{{shapes}}};
static const size_t count = sizeof(shapes) / sizeof(shapes[0]);
static std::vector<std::vector<uint32_t>> blocks(count);
}}  // namespace posdata_image

extern "C" uint32_t posdata_image_blocks() {{ return posdata_image::count; }}

// Block `k` of the image: `words` words of `bits` bits in `chunks`. 0, or -1 when the model's
// block has another shape (an image of another geometry).
extern "C" int32_t posdata_image_set(uint32_t k, uint32_t bits, uint64_t words,
                                     const uint32_t *chunks) {{
  if (k >= posdata_image::count || posdata_image::shapes[k].bits != bits ||
      posdata_image::shapes[k].words != words)
    return -1;
  const size_t n = (bits + 31) / 32;
  posdata_image::blocks[k].assign(chunks, chunks + words * n);
  return 0;
}}
"""


def loader_cxx(blocks: list[Block]) -> str:
    """The CXXRTL model's loader: ``posdata_image::copy``, which a memory's ``reset()`` calls in
    place of its constant array (``split``)."""
    return _loader_common(blocks) + """
namespace posdata_image {
template <size_t Bits>
void copy(size_t k, cxxrtl::value<Bits> *memory, uint64_t words) {
  const size_t n = cxxrtl::value<Bits>::chunks;
  const std::vector<uint32_t> &block = blocks[k];
  if (block.size() != words * n) return;  // not loaded: the driver loads every block first
  for (uint64_t i = 0; i < words; i++)
    for (size_t c = 0; c < n; c++) memory[i].data[c] = block[i * n + c];
}
}  // namespace posdata_image
"""


#: one memory's initialisation as Yosys's write_verilog emits it: an initial block that sets
#: each word (in hex, or in decimal where the word is 32 bits wide)
_VERILOG_INIT = re.compile(r"^  initial begin\n(?P<body>(?:    [^\n]*\n)*?)  end\n", re.M)
_VERILOG_WORD = re.compile(r"^    (?P<memory>\\\S+ |\w+)\[(?P<index>\d+)\] = "
                           r"(?P<bits>\d+)'(?P<base>[hd])(?P<digits>[0-9a-f]+);$")
_MODULE_HEADER = re.compile(r"^module \S+\(.*?\);\n", re.M | re.S)


def split_verilog(verilog: str) -> tuple[str, list[Block]]:
    """As ``split``, for the exported Verilog of a Verilator model: each memory's initial block
    becomes a loop that reads block ``k`` through a DPI function (``verilator_loader_cxx``)."""
    blocks: list[Block] = []

    def take(match: re.Match) -> str:
        words = [_VERILOG_WORD.match(line) for line in match["body"].splitlines()]
        if not all(words) or len({w["memory"] for w in words}) != 1 or \
                len({w["bits"] for w in words}) != 1:
            raise ToolchainError("the exported Verilog initialises something other than one "
                                 "memory's words in an initial block (sim.models.memory_images)")
        first, bits = int(words[0]["index"]), int(words[0]["bits"])
        if [int(w["index"]) for w in words] != list(range(first, first + len(words))):
            raise ToolchainError("the exported Verilog initialises a memory's words out of "
                                 "order (sim.models.memory_images)")
        per_word = -(-bits // CHUNK_BITS)
        chunks = [int(w["digits"], 16 if w["base"] == "h" else 10) >> CHUNK_BITS * c & 0xFFFFFFFF
                  for w in words for c in range(per_word)]
        k = len(blocks)
        blocks.append(Block(bits, len(words), tuple(chunks)))
        memory = words[0]["memory"]
        word = ", ".join(f"posdata_image_word({k}, i, {c})" for c in reversed(range(per_word)))
        return (f"  initial begin : posdata_image_{k}\n"
                f"    integer i;\n"
                f"    reg [{CHUNK_BITS * per_word - 1}:0] word;\n"
                f"    for (i = 0; i < {len(words)}; i = i + 1) begin\n"
                f"      word = {{{word}}};\n"
                f"      {memory}[{first} + i] = word[{bits - 1}:0];\n"
                f"    end\n"
                f"  end\n")

    body = _VERILOG_INIT.sub(take, verilog)
    if not blocks:
        return verilog, []
    header = _MODULE_HEADER.search(body)
    declare = ('  import "DPI-C" function int posdata_image_word(input int k, input int i, '
               'input int c);\n')
    return body[:header.end()] + declare + body[header.end():], blocks


def verilator_loader_cxx(blocks: list[Block]) -> str:
    """The Verilator model's loader: the DPI function its initial blocks read words through."""
    if not blocks:
        return ""
    return _loader_common(blocks) + """
// Chunk `c` of word `i` of block `k` (0 where none is loaded: the driver loads every block
// before it creates the model, whose first evaluation runs the initial blocks).
extern "C" int posdata_image_word(int k, int i, int c) {
  const std::vector<uint32_t> &block = posdata_image::blocks[k];
  const size_t n = (posdata_image::shapes[k].bits + 31) / 32;
  const size_t at = static_cast<size_t>(i) * n + c;
  return at < block.size() ? static_cast<int>(block[at]) : 0;
}
"""


def encode(blocks: list[Block]) -> bytes:
    """The image as bytes (the caller writes them atomically)."""
    out = [_MAGIC, struct.pack("<I", len(blocks))]
    for b in blocks:
        out.append(struct.pack("<IQ", b.bits, b.words))
        out.append(struct.pack(f"<{len(b.chunks)}I", *b.chunks))
    return b"".join(out)


def write_file(path: str, data: bytes) -> None:
    """``data`` into ``path`` (the model cache's temporary name, which it renames)."""
    with open(path, "wb") as f:
        f.write(data)


def read(data: bytes, where: str) -> list[Block]:
    """The image in ``data`` (from the file ``where``, named in the one-line error of a damaged
    image)."""
    try:
        if not data.startswith(_MAGIC):
            raise ValueError("no image header")
        at = len(_MAGIC)
        (count,), at = struct.unpack_from("<I", data, at), at + 4
        blocks = []
        for _ in range(count):
            bits, words = struct.unpack_from("<IQ", data, at)
            at += 12
            n = words * -(-bits // CHUNK_BITS)
            chunks = struct.unpack_from(f"<{n}I", data, at)
            at += 4 * n
            blocks.append(Block(bits, words, chunks))
        if at != len(data):
            raise ValueError("bytes after the last block")
    except (struct.error, ValueError) as e:
        raise ToolchainError(f"the memory image {where} is damaged ({e}): delete it to have it "
                             f"rebuilt") from None
    return blocks


def load(lib: ctypes.CDLL, blocks: list[Block], what: str) -> None:
    """Hand ``blocks`` to the library ``lib`` before it creates a model. A library without
    memories to load takes none."""
    if not hasattr(lib, "posdata_image_blocks"):
        if blocks:
            raise ToolchainError(f"{what} has no memories to load, but an image was given")
        return
    lib.posdata_image_blocks.restype = ctypes.c_uint32
    lib.posdata_image_set.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64,
                                      ctypes.POINTER(ctypes.c_uint32)]
    lib.posdata_image_set.restype = ctypes.c_int32
    expected = lib.posdata_image_blocks()
    if expected != len(blocks):
        raise ToolchainError(f"{what} has {expected} memories to load, its image "
                             f"{len(blocks)}: delete the model cache's entry to rebuild both")
    for k, b in enumerate(blocks):
        array = (ctypes.c_uint32 * len(b.chunks))(*b.chunks)
        if lib.posdata_image_set(k, b.bits, b.words, array) != 0:
            raise ToolchainError(f"{what}'s memory {k} is not {b.words} words of {b.bits} "
                                 f"bits: the image is of another geometry")
