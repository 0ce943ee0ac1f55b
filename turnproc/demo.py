"""`make demo`: a short real game through the whole pipeline.

Creates a SQLite game in demo-output/, with two positions held by demo
players (example.org addresses, so there is mail to look at) and the other
thirteen played by the computer. Neither demo player sends orders, so the
missed-turn policy has the computer play their positions too, and after two
missed turns offers them to a standby player: a volunteer put on the standby
list after turn 3 takes the first offered position at once. Runs a few
turns exactly as a moderator would (`turn run`), renders every player's
report of the last turn (PDF with map, text, JSON) and writes the mail the
game would send as .eml files. Then three computer players play a game of
18MS to its end (a few seconds) and each gets the report of the final
position. Prints where everything is, and how to open the game's web pages
(`turnproc web`).
"""

import os
import shutil
import sys
from pathlib import Path

from turnproc.cli import main as turnproc

TURNS = 4
OUT = Path("demo-output")
PLAYERS = """position,character,real_name,email,secret
3,Cornelius Vanderbilt,Demo Player One,demo.one@example.org,demo-secret-1841
8,Jay Gould,Demo Player Two,demo.two@example.org,demo-secret-1842
"""
STANDBY = "demo.standby@example.org"
WEB_URL = "http://127.0.0.1:8080"


def run(*args: str) -> None:
    print(f"\n$ turnproc {' '.join(args)}", flush=True)
    code = turnproc(list(args))
    if code != 0:
        sys.exit(f"demo: `turnproc {' '.join(args)}` failed with exit code {code}")


def main() -> None:
    out = OUT.resolve()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    os.environ["TURNPROC_DATABASE_URL"] = f"sqlite:///{out / 'demo.db'}"
    os.environ.setdefault("TURNPROC_MAIL_FROM", "moderator@example.org")
    # The mail carries links to the players' own pages, signed with this key.
    os.environ["TURNPROC_WEB_URL"] = WEB_URL
    os.environ["TURNPROC_WEB_KEY_FILE"] = str(out / "web.key")
    players = out / "players.csv"
    players.write_text(PLAYERS, encoding="utf-8")

    run("scenario", "check", "continental-rails")
    run(
        "game",
        "new",
        "--scenario",
        "continental-rails",
        "--name",
        "demo",
        "--seed",
        "1841",
        "--players",
        str(players),
    )
    for turn in range(1, TURNS + 1):
        run("turn", "run", "demo", "--force")
        if turn == 3:
            run("game", "standby", "demo", "--add", STANDBY, "--real-name", "Demo Standby")
    run("game", "status", "demo")
    run("report", "render", "demo", "--out", str(out / "reports"))
    run("scenario", "map", "continental-rails", "--out", str(out / "map.pdf"))
    run("mail", "send", "--dry-run", str(out / "mail"))
    run(
        "18xx", "simulate", "--title", "18ms", "--players", "3", "--seed", "1841",
        "--report", str(out / "18ms"),
    )  # fmt: skip

    pdfs = sorted((out / "reports").rglob("*.pdf"))
    mails = sorted((out / "mail").glob("*.eml"))
    print("\nThe demo game is done.")
    print(
        f"  database:        {out / 'demo.db'}  (TURNPROC_DATABASE_URL=sqlite:///{out / 'demo.db'})"
    )
    print(f"  player reports:  {out / 'reports'}  ({len(pdfs)} PDFs with map, plus .txt and .json)")
    print(f"  mail to send:    {out / 'mail'}  ({len(mails)} .eml files)")
    print(f"  scenario map:    {out / 'map.pdf'}")
    ms_pdfs = sorted((out / "18ms").glob("*.pdf"))
    print(f"  18MS reports:    {out / '18ms'}  ({len(ms_pdfs)} PDFs with map and market)")
    print(
        "Look further with: .venv/bin/turnproc game status demo "
        f"(after export TURNPROC_DATABASE_URL=sqlite:///{out / 'demo.db'})"
    )
    print("\nOpen the demo game's page in a browser:")
    print(
        f"  export TURNPROC_DATABASE_URL=sqlite:///{out / 'demo.db'} "
        f"TURNPROC_WEB_KEY_FILE={out / 'web.key'}"
    )
    print(f"  .venv/bin/turnproc web       # then open {WEB_URL}/games/1")
    print(
        "  A demo player's own page (report, PDFs, order form): the link at the end of his "
        f"mail in {out / 'mail'}, or .venv/bin/turnproc web --link demo --player 3"
    )


if __name__ == "__main__":
    main()
