"""The game-independent pipeline, one module per concern, in layers (each
imports only those before it): policies (the words of a game's policies,
importing nothing), stored (a game's scenario and stored states),
schedule (deadlines, reminders, pause), reports (rendering and queueing the
reports), players (assign, drop, standby), games (new games, status,
adjustments), turns (turn runs, due games, rollback and rerun).
"""
