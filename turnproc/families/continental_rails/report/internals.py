"""ReportLab's private internals, used only with the release they were checked against.

Some of the report's bytes are written here as ReportLab would write them, for
less: strings and fonts (strings.py, embedding.py), the map's outlines and
labels (mapdraw.py) and the map pages' shared layers (maps.py, drawn once a
turn and replayed in every report). Those paths read and write names ReportLab
does not publish (`canvas._code`, `canvas._doc`, `font._dynamicFont`, ...),
which any release may change. They are taken only with the release their
output was checked against byte for byte, the one pyproject.toml pins
(`CHECKED`); with any other release the reports are drawn through
ReportLab's public calls: the same pages and text, more slowly.
tests/test_report_internals.py renders reports both ways and compares them.
"""

import reportlab

CHECKED = "5.1.0"
# Read at each use, so a test can take the public path with the checked release.
PRIVATE = reportlab.Version == CHECKED
