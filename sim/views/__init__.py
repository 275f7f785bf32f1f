"""What a run shows a person: the first difference between move lists, perft reports,
cycle accounts, GTKWave save files, a piece's walk drawn on the board."""
