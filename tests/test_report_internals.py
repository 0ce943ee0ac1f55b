"""ReportLab's private internals only with the release they were checked
against (report/internals.py): with any other release the reports are drawn
through ReportLab's public calls, and say the same."""

import io
import re
import tomllib
from pathlib import Path

import pytest
import reportlab
from pypdf import PdfReader

from turnproc.families.continental_rails.report import internals
from turnproc.families.continental_rails.report.maps import MapPages
from turnproc.families.continental_rails.report.model import build_report
from turnproc.families.continental_rails.report.pdf import render_pdf
from turnproc.families.continental_rails.report.sample import sample_turn
from turnproc.scenario.model import Scenario

ROOT = Path(__file__).resolve().parent.parent


def _pages(pdf: bytes) -> list[str]:
    # A shared map layer is a form drawn in one piece, the public path draws
    # its labels in the page: the same words, broken into lines differently.
    return [" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(pdf)).pages]


def test_the_pinned_release_is_the_checked_one() -> None:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        dependencies = tomllib.load(handle)["project"]["dependencies"]
    [pin] = [d for d in dependencies if re.match(r"reportlab\b", d, re.IGNORECASE)]
    assert pin == f"reportlab=={internals.CHECKED}"  # a new pin: check the private paths anew
    assert (reportlab.Version == internals.CHECKED) == internals.PRIVATE


@pytest.mark.parametrize("reader", [1, 7])
def test_the_public_path_draws_the_same_reports(
    scenario: Scenario, reader: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    start, result, meta = sample_turn(scenario)
    report = build_report(scenario, start, result, meta, reader)
    monkeypatch.setattr(internals, "PRIVATE", True)
    private = render_pdf(report, MapPages(scenario))
    monkeypatch.setattr(internals, "PRIVATE", False)
    public = render_pdf(report, MapPages(scenario))
    assert public != private  # the other path was taken: fonts and maps written otherwise
    assert any("Map:" in page for page in _pages(public))
    assert _pages(public) == _pages(private)


def test_a_reports_pages_are_deflated_alone(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each page's own stream is deflated (at zlib's fastest level) and not
    written in ASCII85 as well (report/embedding.py)."""
    start, result, meta = sample_turn(scenario)
    report = build_report(scenario, start, result, meta, 1)
    monkeypatch.setattr(internals, "PRIVATE", True)
    pdf = render_pdf(report, MapPages(scenario))
    pages = PdfReader(io.BytesIO(pdf)).pages
    assert any("Map:" in page for page in _pages(pdf))
    for page in pages:
        contents = page["/Contents"].get_object()
        assert contents["/Filter"] == ["/FlateDecode"]
