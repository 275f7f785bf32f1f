"""The search thread (issue 27): alpha-beta with quiescence below the host's search, node for node
engine/search/leaf_search.py, built on the perft chip's board and attack unit
(docs/chip_search.md)."""
