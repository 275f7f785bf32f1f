"""The move generator: the posdata ROM, the generator's chess board (colour planes, piece
memory), the piece prefetcher, the walker, the output merger, the core and the generator."""
