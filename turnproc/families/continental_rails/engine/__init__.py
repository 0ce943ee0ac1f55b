"""Continental Rails: the rules engine.

Pure: no database, files, clock or global random. The entry points are
`setup.new_game` (the 1841 start), `resolve.resolve_turn` (one whole turn) and
`ai.computer_orders` (orders for unplayed positions).
"""
