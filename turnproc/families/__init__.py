"""The game families this program plays.

One folder per family (`continental_rails/`, ...): its engine, computer
players, order language and report. A new family is one new folder and one
entry in the registry (registry.py, which maps family names to `GameFamily`).
Nothing is imported here, so loading one module of one family does not load
every family's engine.
"""
