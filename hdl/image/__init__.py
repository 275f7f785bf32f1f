"""The ROM images in plain Python (no amaranth at import), built from the engine's tables in the
engine's table order: ``addressing`` (widths, addresses, which tables are pawns'), ``sparse``
(the (table, from, to) layout), ``dense`` (the by-walk layout, derived from the sparse words),
``variant`` (both, with the widths they need, built once per variant)."""
