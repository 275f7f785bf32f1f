"""The pure-Python reference: encodings, posdata tables, board, generator, perft, search and
UCI. Never imports amaranth, hdl or sim."""

if __name__ != "posdata.engine":
    # From the repository root this folder is also importable as `engine`: a second copy of every
    # class. The product's one namespace is posdata.*; refuse the other name outright.
    raise ImportError(f"import posdata.engine, not {__name__} (pip install -e . first)")
