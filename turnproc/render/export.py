"""The turn report as JSON, for players' own tools: the `PlayerReport` model itself.

Deterministic: the same report always gives the same bytes (keys in model
order, UTF-8, no timestamps). `format_version` changes when a field changes
meaning or disappears.
"""

import json

from turnproc.render.report import PlayerReport

FORMAT_VERSION = 1


def render_json(report: PlayerReport) -> str:
    data = {"format": "turnproc-report", "format_version": FORMAT_VERSION}
    data.update(report.model_dump(mode="json"))
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"
