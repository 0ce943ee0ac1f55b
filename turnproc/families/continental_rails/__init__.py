"""Continental Rails (Graaf Simulations, 1841-1890): simultaneous turns.

`engine/` is the pure rules engine, `ai/` the computer players,
`turnsheet/` the order language (parse, check, receipt, the sheet itself),
`report/` the turn report (model, text, PDF with maps, JSON) and
`family.py` the boundary the pipeline sees (`CONTINENTAL_RAILS`).
"""
