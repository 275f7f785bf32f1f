"""The ROM images in plain Python (no amaranth at import): the posdata tables in the sparse
(from, to) layout and the dense by-walk layout, and what a variant needs of them."""
