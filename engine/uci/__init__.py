"""The UCI engine: the protocol loop (``protocol``), ``go``'s numbers, bounded input and ``go
perft``, over ``engine.search``."""
