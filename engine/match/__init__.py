"""``posdata match``'s logic: games between two UCI engines, as cutechess-cli plays them.

``spec`` reads what an engine is (posdata at a backend, or any UCI engine's command), with its
options and limits; ``uci_client`` drives one engine process; ``book`` reads the opening book
(``openings.txt``, shipped); ``judge`` ends a game by the rules on the engine's own board; ``san``
and ``pgn`` write the games; ``game`` plays one, ``runner`` the match; ``elo`` and ``sprt`` hold
the statistics, and ``summary`` the figures and their text. The command is sim/cli/match_cmd.py.
"""
