"""The moderator's commands for games and turns, end to end through `main`."""

import json
import re
from pathlib import Path

import pytest

from turnproc.cli import main

from .store_support import use_stand_in_engine


@pytest.fixture
def cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> "Cli":
    monkeypatch.setenv("TURNPROC_DATABASE_URL", f"sqlite:///{tmp_path / 'cli.db'}")
    use_stand_in_engine(monkeypatch)
    return Cli(capsys)


class Cli:
    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(self, *args: str, code: int = 0) -> str:
        try:
            result = main(list(args))
        except SystemExit as exc:  # argparse's own usage errors
            result = int(exc.code or 0)
        out, err = self.capsys.readouterr()
        assert result == code, err or out
        if code:
            assert len(err.strip().splitlines()) == 1 and err.startswith("turnproc: "), err
            return err
        return out


def test_a_game_from_new_to_rerun(cli: Cli, tmp_path: Path) -> None:
    players = tmp_path / "players.csv"
    players.write_text(
        "position,character,real_name,email,secret\n"
        "2,Hetty Green,H. Green,hetty@example.org,gold-rush-1849\n"
        "9,,Sam,sam@example.org,\n",
        encoding="utf-8",
    )
    game_id = cli(
        "game",
        "new",
        "--scenario",
        "continental-rails",
        "--players",
        str(players),
        "--seed",
        "17",
        "--name",
        "east",
    ).strip()
    assert game_id == "1"
    listed = cli("game", "list")
    assert "east" in listed
    assert re.search(r"due \d{4}-\d\d-\d\d \d\d:\d\d UTC$", listed.strip()), listed
    status = json.loads(cli("game", "status", "east", "--json"))
    assert status["turn"] == 1 and status["due"] is False
    assert [p["position"] for p in status["players"] if p["human"]] == [2, 9]
    assert len(status["standings"]) == 15
    start = cli("game", "export", "east", "--json")
    assert json.loads(start)["turn"] == 1
    assert cli("game", "export", "1", "--json") == start

    assert "not due" in cli("turn", "run", "east", code=1)
    preview = cli("turn", "run", "east", "--preview")
    assert "nothing stored" in preview
    assert cli("game", "export", "east", "--json") == start
    ran = json.loads(cli("turn", "run", "east", "--force", "--json"))
    assert ran["processed"] and ran["missed"] == [2, 9]
    assert "already processed" in cli("turn", "run", "east", "--force", "--turn", "1")
    after = cli("game", "export", "east", "--turn", "2", "--json")

    assert "no change" in cli("turn", "rerun", "east")
    assert "no change" in cli("turn", "rerun", "east", "--reason", "a rules fix")
    assert "a rules fix" in cli("game", "log", "east")
    assert cli("game", "export", "east", "--turn", "2", "--json") == after
    assert "back at the start of turn 1" in cli("turn", "rollback", "east", "--to", "1")
    assert json.loads(cli("game", "status", "east", "--json"))["turn"] == 1
    cli("turn", "run", "east", "--force")
    assert cli("game", "export", "east", "--turn", "2", "--json") == after
    assert (
        cli("game", "adjust", "east", "--position", "2", "--cash", "+100", "--reason", "lost sheet")
        == "east: gave $100 to position 2. Reason (shown in the next news): lost sheet\n"
    )
    assert "adjust" in cli("game", "log", "east")

    assert "assigned" in cli(
        "game", "assign", "east", "--position", "5", "--email", "new@example.org"
    )
    assert "computer" in cli("game", "drop", "east", "--position", "9")
    assert "queued" in cli("game", "resend", "east", "--position", "2")


def test_bad_input_is_one_line(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("position,character,real_name,email,secret\n16,X,Y,x@example.org,\n")
    assert "position must be 1-15" in cli(
        "game", "new", "--scenario", "continental-rails", "--players", str(bad), code=2
    )
    assert "cannot read" in cli(
        "game",
        "new",
        "--scenario",
        "continental-rails",
        "--players",
        str(tmp_path / "none.csv"),
        code=2,
    )
    assert "no scenario named" in cli("game", "new", "--scenario", "nowhere", code=1)
    assert "no game 'ghost'" in cli("game", "status", "ghost", code=1)
    cli("game", "new", "--scenario", "continental-rails", "--name", "g", "--seed", "1")
    assert "already exists" in cli(
        "game", "new", "--scenario", "continental-rails", "--name", "g", code=1
    )
    assert "--to must be lower" in cli("turn", "rollback", "g", "--to", "1", code=2)
    assert "--reason" in cli("game", "adjust", "g", "--position", "1", "--cash", "5", code=2)
    assert "no railroad" in cli(
        "game", "adjust", "g", "--railroad", "XX", "--cash", "5", "--reason", "r", code=2
    )
    assert "name a game" in cli("turn", "run", code=2)
    assert "no game is due" in cli("turn", "run", "--due")


def test_the_standby_list_from_the_command_line(cli: Cli, tmp_path: Path) -> None:
    players = tmp_path / "players.csv"
    players.write_text(
        "position,character,real_name,email,secret\n3,,Ann,ann@example.org,pw-ann-river-42\n",
        encoding="utf-8",
    )
    cli(
        "game", "new", "--scenario", "continental-rails", "--players", str(players),
        "--name", "s", "--missed-turn-limit", "1",
    )  # fmt: skip
    assert "nobody is waiting" in cli("game", "standby", "s")
    assert "waiting for a position" in cli(
        "game", "standby", "s", "--add", "vol@example.org", "--real-name", "Val"
    )
    assert "waiting: vol@example.org Val" in cli("game", "standby", "s")
    assert "already on the standby list" in cli(
        "game", "standby", "s", "--add", "vol@example.org", code=2
    )
    assert "not an email address" in cli("game", "standby", "s", "--add", "nobody", code=2)
    assert "not both" in cli(
        "game", "standby", "s", "--add", "a@b.org", "--remove", "c@d.org", code=2
    )
    cli("turn", "run", "s", "--force")  # Ann sends nothing: one miss is the limit here
    listed = json.loads(cli("game", "standby", "s", "--json"))
    assert listed["took_over"] == [{"email": "vol@example.org", "position": 3, "turn": 2}]
    status = json.loads(cli("game", "status", "s", "--json"))
    assert [p["email"] for p in status["players"] if p["position"] == 3] == ["vol@example.org"]
    assert "waiting for a position" in cli("game", "standby", "s", "--add", "w@example.org")
    assert "standby players waiting: w@example.org" in cli("game", "status", "s")
    assert "off the standby list" in cli("game", "standby", "s", "--remove", "w@example.org")
    assert "is not waiting" in cli("game", "standby", "s", "--remove", "w@example.org", code=2)
    assert "cannot be negative" in cli(
        "game", "new", "--scenario", "continental-rails", "--missed-turn-limit", "-1", code=2
    )


def test_schedule_and_the_missing_orders_gate_from_the_command_line(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TURNPROC_SMTP_URL", raising=False)
    players = tmp_path / "players.csv"
    rows = "".join(f"{p},,P{p},p{p}@example.org,pw{p}-river-maple\n" for p in (1, 2, 3))
    players.write_text("position,character,real_name,email,secret\n" + rows, encoding="utf-8")
    cli("game", "new", "--scenario", "continental-rails", "--players", str(players), "--name", "g")
    shown = cli("game", "schedule", "g", "--extend-hours", "12", "--reason", "outage")
    assert shown.startswith("deadline: ") and "policy 'computer'" in shown
    assert "is not a date and time" in cli("game", "schedule", "g", "--deadline", "soon", code=2)
    settings = json.loads(
        cli("game", "schedule", "g", "--missed-turn-policy", "idle", "--no-early-run", "--json")
    )
    assert settings["changed"] == {
        "early_run": [True, False],
        "missed_turn_policy": ["computer", "idle"],
    }
    held = cli("turn", "run", "g", "--force", code=1)
    assert "3 of 3 human players have no orders in force" in held
    assert "turn_refused" in cli("game", "log", "g")
    assert "now at turn 2" in cli("turn", "run", "g", "--force", "--accept-missing")
    assert "--accept-missing" in cli("turn", "run", "--due", "--accept-missing", code=2)
    assert "--send goes with --due" in cli("turn", "run", "g", "--send", code=2)
    assert "--send needs a mail server" in cli("turn", "run", "--due", "--send", code=2)
