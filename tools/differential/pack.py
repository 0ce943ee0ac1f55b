"""Pack the generated games that agree with the reference into the test data.

    python tools/differential/pack.py games/*.json

Writes tests/data/g18xx_differential/<title>.json.xz (a JSON list of games,
each as the driver exported it, without the actions' creation times) with
every finished game whose every action agrees; prints the others with their
first disagreement.
"""

import json
import lzma
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from turnproc.families.g18xx.compare import compare

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "g18xx_differential"


def main(paths: list[str]) -> int:
    kept: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for name in sorted(paths):
        data = json.loads(Path(name).read_text(encoding="utf-8"))
        if not data.get("result"):
            print(f"{name}: unfinished ({data.get('reference_stuck', 'no result')})")
            continue
        found = compare(data)
        if found is not None:
            print(f"{name}: {found}")
            continue
        for action in data["actions"]:
            action.pop("created_at", None)
        data["source"] = Path(name).name
        kept[data["title"]].append(data)
    OUT.mkdir(parents=True, exist_ok=True)
    for title, games in sorted(kept.items()):
        games.sort(key=lambda g: (len(g["players"]), g["id"]))
        target = OUT / f"{title}.json.xz"
        target.write_bytes(lzma.compress(json.dumps(games, separators=(",", ":")).encode()))
        print(f"{target}: {len(games)} games")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
