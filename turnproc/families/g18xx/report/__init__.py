"""What a player of an 18xx game sees: a report model built from the engine's
state, rendered as text (Jinja2), JSON and a PDF (ReportLab) with the map, the
stock market and the charters. Rendering lives here, outside the engine, which
never imports it."""

from turnproc.families.g18xx.report.model import Report, build_report
from turnproc.families.g18xx.report.pdf import render_pdf
from turnproc.families.g18xx.report.text import render_json, render_text

__all__ = ["Report", "build_report", "render_json", "render_pdf", "render_text"]
