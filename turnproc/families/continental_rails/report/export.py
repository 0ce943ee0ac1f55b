"""The turn report as JSON, for players' own tools: the `PlayerReport` model itself.

Deterministic: the same report always gives the same bytes (keys in model
order, UTF-8, no timestamps). `format_version` changes when a field changes
meaning or disappears.
"""

from turnproc.families.continental_rails.report.model import PlayerReport

FORMAT_VERSION = 1


def render_json(report: PlayerReport) -> str:
    # pydantic's serializer writes the same text as json.dumps(..., ensure_ascii=False,
    # indent=1) would, several times faster; the two header keys go first.
    body = report.model_dump_json(indent=1)
    head = f'{{\n "format": "turnproc-report",\n "format_version": {FORMAT_VERSION},\n'
    return head + body.removeprefix("{\n") + "\n"
