"""Searching the game: the software search (``searcher``, ``eval``), the chip's search defined
once (``leaf_*``, ``capture_finder``, ``hash_keys``) and the host's search above it
(``host_*``). Imports ``engine.rules`` only."""
