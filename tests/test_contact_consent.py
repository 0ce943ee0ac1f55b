"""3.1, 9.2: a player's e-mail address reaches the other players' reports only
if he agreed (players file `share_email`, or the CONTACT mail command), and the
0004 migration adds the flag (default: not shown) and can be undone."""

from pathlib import Path

import pytest
from sqlalchemy import inspect, select, text

from turnproc.core.errors import UsageError
from turnproc.families.continental_rails.engine.resolve import resolve_turn
from turnproc.families.continental_rails.engine.setup import new_game
from turnproc.families.continental_rails.report.model import build_report
from turnproc.families.continental_rails.report.render import meta_of
from turnproc.pipeline import players, reports
from turnproc.scenario.model import Scenario
from turnproc.store import db
from turnproc.store import repository as repo
from turnproc.store.db import transaction
from turnproc.store.models import Player

from . import test_mail_inbound as inbound_corpus
from . import test_store_migrations as migrations
from .test_mail_inbound import ANN, GAME, SECRETS, World, mail, replies, run

db_url = migrations.db_url  # the fixture: an empty database, SQLite and PostgreSQL
world = inbound_corpus.world  # the fixture: a game at turn 2, on SQLite and PostgreSQL


def test_the_players_file_says_who_shares_the_address(tmp_path: Path) -> None:
    path = tmp_path / "players.csv"
    path.write_text(
        "position,character,real_name,email,secret,share_email\n"
        "1,,Ann,ann@example.org,,yes\n"
        "2,,Bob,bob@example.org,,\n"
        "3,,Cy,cy@example.org,,No\n"
    )
    entries = players.read_players_csv(path)
    assert [e.share_email for e in entries] == [True, False, False]
    path.write_text("position,email\n1,ann@example.org\n")  # no column: not shown
    assert [e.share_email for e in players.read_players_csv(path)] == [False]
    path.write_text("position,email,share_email\n1,ann@example.org,perhaps\n")
    with pytest.raises(UsageError, match=r"players.csv:2: share_email must be yes or no"):
        players.read_players_csv(path)


def _emails(scenario: Scenario, *, anonymous: bool, reader: int) -> dict[int, str]:
    state = new_game(scenario, 3, [])
    result = resolve_turn(scenario, state, {})
    infos = {
        t.position: reports.PlayerInfo(
            t.position,
            t.character,
            f"Person {t.position}",
            f"p{t.position}@example.org",
            "",
            True,
            share_email=t.position == 2,
        )
        for t in state.tycoons
    }
    data = reports.ReportInput(
        scenario=scenario,
        game="g",
        turn=1,
        before=state,
        after=result.state,
        events=[],
        rejections=[],
        ledger=[],
        players=infos,
        anonymous=anonymous,
    )
    report = build_report(scenario, state, result, meta_of(data), reader)
    return {line.position: line.email for line in report.players if line.email}


def test_only_an_address_its_player_agreed_to_is_shown(scenario: Scenario) -> None:
    assert _emails(scenario, anonymous=False, reader=1) == {2: "p2@example.org"}
    assert _emails(scenario, anonymous=False, reader=5) == {2: "p2@example.org"}
    assert _emails(scenario, anonymous=True, reader=1) == {}


def test_contact_by_mail_agrees_and_withdraws(world: World) -> None:
    def shared() -> bool:
        with transaction(world.engine) as session:
            return session.scalars(
                select(Player.share_email).where(
                    Player.game_id == world.game_id, Player.position == 1
                )
            ).one()

    assert not shared()
    line = f"CONTACT game: {GAME} player: 1 secret: {SECRETS[1]}"
    agree = run(world, mail(f"{line} share", message_id="<c1@ann>"))
    assert (agree.verdict, agree.answered) == ("contact", True)
    assert shared() and ANN in replies(world, agree)[0].body
    forged = run(world, mail(f"{line} withhold", sender="eve@example.net", message_id="<c2@e>"))
    assert forged.verdict == "refused" and shared()
    neither = run(world, mail(line, message_id="<c3@ann>"))
    assert neither.verdict == "refused" and "share or withhold" in replies(world, neither)[0].body
    withdraw = run(world, mail(f"{line} withhold", message_id="<c4@ann>"))
    assert withdraw.verdict == "contact" and not shared()
    with transaction(world.engine) as session:
        logged = [
            e for e in repo.log_entries(session, world.game_id) if e.action == "contact_consent"
        ]
    assert len(logged) == 2


def test_migration_0004_adds_consent_not_given_and_can_be_undone(db_url: str) -> None:
    engine = db.create_db_engine(db_url)
    migrations._migrate(engine, "upgrade", "0004_g18xx_mail")
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO games (name, scenario, seed, current_turn, status, grace_minutes,"
                " turn_days, reminder_hours, missed_turn_limit, anonymous, early_run, created_at)"
                " VALUES ('old', 'continental-rails', 7, 3, 'active', 0, 7, '48,12', 2,"
                " false, true, '2026-01-01 00:00:00+00:00')"
            )
        )
        game_id = connection.execute(text("SELECT id FROM games")).scalar()
        connection.execute(
            text(
                "INSERT INTO players (game_id, position, character, real_name, email, phone,"
                " human, missed_turns, standby, wrong_secrets)"
                " VALUES (:g, 1, 'A', 'Ann', 'ann@example.org', '', true, 0, false, 0)"
            ),
            {"g": game_id},
        )
    migrations._migrate(engine, "upgrade", "0004_contact_consent")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT share_email FROM players")).scalar() in (False, 0)
    migrations._migrate(engine, "downgrade", "0004_g18xx_mail")
    with engine.connect() as connection:
        columns = {c["name"] for c in inspect(connection).get_columns("players")}
        assert "share_email" not in columns
        assert connection.execute(text("SELECT email FROM players")).scalar() == ANN
    assert db.upgrade(engine) == ("0004_g18xx_mail", db.head_revision())
    engine.dispose()
