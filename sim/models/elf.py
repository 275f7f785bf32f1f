"""Is a shared library whole? The loader maps an ELF file's segments where its headers say they
are; a file cut short of them maps pages past its end, and the first touch of one kills the
process with SIGBUS. Reading the headers first turns that into a refusal."""

import struct

PT_LOAD = 1

#: per ELF class: the header's size, then where e_phoff, e_shoff and the three halfwords
#: e_phentsize, e_phnum (after e_flags, e_ehsize) and e_shentsize, e_shnum are
LAYOUT = {
    1: (52, "I", 28, 32, 42),    # ELF32
    2: (64, "Q", 32, 40, 54),    # ELF64
}


def shortfall(path: str) -> str | None:
    """Why the ELF file at ``path`` is not whole (what its headers point past the end of), or
    None when it is whole or is not ELF at all (then the loader's own error is clear)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or len(data) < 6 or data[4] not in LAYOUT or data[5] not in (1, 2):
        return None
    header, word, at_phoff, at_shoff, at_sizes = LAYOUT[data[4]]
    order = "<" if data[5] == 1 else ">"
    if len(data) < header:
        return f"{len(data)} bytes, shorter than an ELF header"
    (phoff,), (shoff,) = (struct.unpack_from(order + word, data, at) for at in (at_phoff, at_shoff))
    phentsize, phnum = struct.unpack_from(order + "HH", data, at_sizes)
    shentsize, shnum = struct.unpack_from(order + "HH", data, at_sizes + 4)
    if phoff + phentsize * phnum > len(data):
        return f"{len(data)} bytes, its program headers end at {phoff + phentsize * phnum}"
    for i in range(phnum):
        kind, offset, size = segment(data, order, data[4], phoff + i * phentsize)
        if kind == PT_LOAD and offset + size > len(data):
            return f"{len(data)} bytes, a segment it maps ends at {offset + size}"
    if shoff and shoff + shentsize * shnum > len(data):
        return f"{len(data)} bytes, its section headers end at {shoff + shentsize * shnum}"
    return None


def segment(data: bytes, order: str, elf_class: int, at: int) -> tuple[int, int, int]:
    """A program header's type, file offset and size in the file."""
    if elf_class == 2:  # p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz
        kind, _, offset, _, _, size = struct.unpack_from(order + "IIQQQQ", data, at)
    else:  # p_type, p_offset, p_vaddr, p_paddr, p_filesz
        kind, offset, _, _, size = struct.unpack_from(order + "IIIII", data, at)
    return kind, offset, size
