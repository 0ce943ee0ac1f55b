"""Map labels (town names, route codes) written from operators made once per
process are the bytes ReportLab's text objects write for them: with and
without a halo, in every size the maps use, in ASCII and beyond."""

from reportlab.pdfgen.canvas import Canvas

from turnproc.families.continental_rails.report import mapdraw
from turnproc.scenario.model import Scenario


class _Noting(Canvas):
    """A canvas subclass: labels on it go through ReportLab's text objects."""


def _labels(canvas: Canvas, scenario: Scenario) -> list[str]:
    label = mapdraw._Labels(canvas)
    texts = [t.name for t in scenario.towns.values()] + list(scenario.routes)
    texts += ["Montréal", "(a) \\ b", "St. John's"]
    looks = [
        ("Helvetica", 4.2, "#1f3a5f", "#ffffff"),
        ("Helvetica-Bold", 3.36, "#7a1f1f", "#ffffff"),
        ("Helvetica-Bold", 5.75, "#111111", "#f7f3e6"),
        ("Helvetica", 8.0, "#111111", None),
        ("ZapfDingbats", 5.0, "#111111", "#ffffff"),  # its ASCII is not itself
    ]
    for i, text in enumerate(texts):
        font, size, colour, halo = looks[i % len(looks)]
        # Each twice: made, then from the cache.
        for x in (10.0 + i % 7 * 0.37, 3.125):
            label(text, x, 20.5 - i * 0.3, font, size, colour, halo)
    return list(canvas._code)


def test_labels_are_the_bytes_reportlabs_text_objects_write(scenario: Scenario) -> None:
    mapdraw._LABEL_OPS.clear()
    assert _labels(Canvas(None), scenario) == _labels(_Noting(None), scenario)
    assert mapdraw._LABEL_OPS
