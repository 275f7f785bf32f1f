"""The game: encodings, Sandström's posdata tables, pieces and variants, the board, FEN, the
reference move generator and perft. Imports nothing else of posdata."""
