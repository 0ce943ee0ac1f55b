"""The Continental Rails turn report: one model (`model.py`) rendered as a PDF
with maps, a plain-text mail body and a JSON export; `render.py` renders a
whole turn in worker processes.
"""
