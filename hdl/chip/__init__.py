"""The perft chip: a thread's chess board with attacker planes, the legality (attack) unit,
the perft thread around the generator core, engines of two threads, the claim counter, the chip."""
