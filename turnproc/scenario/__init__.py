"""Scenarios: the data that makes a game (map, routes, tables, rates).

`model` holds the pure types the rules engine reads; `loader` reads a
scenario folder from disk and is used only outside the engine.
"""
