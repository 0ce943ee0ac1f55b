"""Storage for a site of many games: each report stored once (text and JSON
deflated, the PDF by its digest, rendered again when mailed), the outbox
referring to the report it carries instead of copying it, each game's due time
(deadline plus grace) indexed for the due scan, and the records over all ended
games kept as rows.

Existing data is carried over: report texts and JSON are deflated, PDFs stored
before stay stored, report mail whose text and JSON copy its report refers to
it, each game gets its due time, and the records are worked out once from the
final states of the games that have ended. A downgrade puts the texts back;
reports stored after this upgrade have no PDF then (the older program cannot
render one again when mailing).

Revision ID: 0003_scale
Revises: 0003_mail_servers
Create Date: 2026-12-01 15:20:00
"""

import json
import zlib
from collections.abc import Iterator, Sequence
from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0003_scale"
down_revision: str | None = "0003_mail_servers"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500


def _pack(text: str) -> bytes:
    return zlib.compress(text.encode("utf-8"), 6)


def _unpack(data: bytes) -> str:
    return zlib.decompress(data).decode("utf-8")


def _in_batches(bind: Any, table: Any, *columns: Any) -> Iterator[Any]:
    """Every row of `table` (its id, then `columns`) in id order, read BATCH
    rows at a time, so a large table is never held in memory at once."""
    last = 0
    while rows := bind.execute(
        sa.select(table.c.id, *columns).where(table.c.id > last).order_by(table.c.id).limit(BATCH)
    ).all():
        yield from rows
        last = rows[-1][0]


def upgrade() -> None:
    bind = op.get_bind()
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("due_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("all_in_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index("ix_games_status_due_at", ["status", "due_at"], unique=False)
        batch_op.create_index("ix_games_status_all_in_at", ["status", "all_in_at"], unique=False)
    games = sa.table(
        "games",
        sa.column("id", sa.Integer),
        sa.column("deadline", sa.DateTime(timezone=True)),
        sa.column("grace_minutes", sa.Integer),
        sa.column("due_at", sa.DateTime(timezone=True)),
        sa.column("all_in_at", sa.DateTime(timezone=True)),
        sa.column("status", sa.String),
        sa.column("current_turn", sa.Integer),
    )
    _mark_all_in(bind, games)
    for game_id, deadline, grace in bind.execute(
        sa.select(games.c.id, games.c.deadline, games.c.grace_minutes).where(
            games.c.deadline.is_not(None)
        )
    ).all():
        bind.execute(
            games.update()
            .where(games.c.id == game_id)
            .values(due_at=deadline + timedelta(minutes=grace or 0))
        )

    with op.batch_alter_table("reports", schema=None) as batch_op:
        batch_op.add_column(sa.Column("text_z", sa.LargeBinary(), nullable=True))
        batch_op.add_column(sa.Column("json_z", sa.LargeBinary(), nullable=True))
        batch_op.add_column(sa.Column("pdf_sha256", sa.String(length=64), nullable=True))
        batch_op.add_column(
            sa.Column("deadline", sa.String(length=40), server_default="", nullable=False)
        )
    reports = sa.table(
        "reports",
        sa.column("id", sa.Integer),
        sa.column("game_id", sa.Integer),
        sa.column("turn", sa.Integer),
        sa.column("position", sa.Integer),
        sa.column("text", sa.Text),
        sa.column("json", sa.Text),
        sa.column("text_z", sa.LargeBinary),
        sa.column("json_z", sa.LargeBinary),
    )
    for report_id, text, data in _in_batches(bind, reports, reports.c.text, reports.c.json):
        bind.execute(
            reports.update()
            .where(reports.c.id == report_id)
            .values(text_z=_pack(text), json_z=_pack(data))
        )

    outbox = sa.table(
        "outbox",
        sa.column("id", sa.Integer),
        sa.column("game_id", sa.Integer),
        sa.column("turn", sa.Integer),
        sa.column("position", sa.Integer),
        sa.column("kind", sa.String),
        sa.column("body", sa.Text),
        sa.column("pdf", sa.LargeBinary),
        sa.column("json_attachment", sa.Text),
        sa.column("report_id", sa.Integer),
    )
    copies = bind.execute(
        sa.select(outbox.c.id, reports.c.id, outbox.c.body, outbox.c.json_attachment)
        .join(
            reports,
            (reports.c.game_id == outbox.c.game_id)
            & (reports.c.turn == outbox.c.turn)
            & (reports.c.position == outbox.c.position),
        )
        .where(outbox.c.kind == "report", outbox.c.pdf.is_(None))
    ).all()
    links = []
    for message_id, report_id, body, data in copies:
        report = bind.execute(
            sa.select(reports.c.text, reports.c.json).where(reports.c.id == report_id)
        ).one()
        if (body, data) == (report.text, report.json):
            links.append((message_id, report_id))

    with op.batch_alter_table("reports", schema=None) as batch_op:
        batch_op.alter_column("text_z", existing_type=sa.LargeBinary(), nullable=False)
        batch_op.alter_column("json_z", existing_type=sa.LargeBinary(), nullable=False)
        batch_op.drop_column("text")
        batch_op.drop_column("json")

    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.add_column(sa.Column("report_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_outbox_report_id"), ["report_id"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_outbox_report_id_reports"),
            "reports",
            ["report_id"],
            ["id"],
            ondelete="SET NULL",
        )
    # After the reports table is rebuilt (SQLite rebuilds a table to change a
    # column, which would clear the references).
    for message_id, report_id in links:
        bind.execute(
            outbox.update()
            .where(outbox.c.id == message_id)
            .values(report_id=report_id, body="", json_attachment=None)
        )

    op.create_table(
        "records",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("category", sa.String(length=40), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("character", sa.String(length=80), nullable=False),
        sa.Column("game", sa.String(length=80), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_records")),
    )
    records = sa.table(
        "records",
        sa.column("category", sa.String),
        sa.column("score", sa.Integer),
        sa.column("character", sa.String),
        sa.column("game", sa.String),
    )
    merged = _records_of_ended_games(bind)
    if merged:
        bind.execute(records.insert(), merged)


def _mark_all_in(bind: Any, games: Any) -> None:
    """Active games whose human players still in all have orders in force."""
    players = sa.table(
        "players",
        sa.column("id", sa.Integer),
        sa.column("game_id", sa.Integer),
        sa.column("position", sa.Integer),
        sa.column("human", sa.Boolean),
        sa.column("standby", sa.Boolean),
    )
    orders = sa.table(
        "orders_in_force",
        sa.column("game_id", sa.Integer),
        sa.column("turn", sa.Integer),
        sa.column("position", sa.Integer),
        sa.column("source", sa.String),
    )
    human = sa.and_(
        players.c.game_id == games.c.id,
        players.c.human.is_(True),
        players.c.standby.is_(False),
    )
    has_orders = sa.exists().where(
        orders.c.game_id == games.c.id,
        orders.c.turn == games.c.current_turn,
        orders.c.position == players.c.position,
        orders.c.source != "computer",
    )
    bind.execute(
        games.update()
        .where(
            games.c.status == "active",
            sa.exists().where(human),
            ~sa.exists().where(human, ~has_orders),
        )
        .values(all_in_at=sa.func.now())
    )


def _records_of_ended_games(bind: Any) -> list[dict[str, Any]]:
    """11.3 The records of every ended game's final state merged in the order
    the games ended, as `game new` worked them out before this revision."""
    from turnproc.families.continental_rails.engine.state import RecordHolder
    from turnproc.families.continental_rails.engine.steps.victory import merge_records, victory_params
    from turnproc.scenario.loader import load_scenario

    states = sa.table(
        "turn_states",
        sa.column("game_id", sa.Integer),
        sa.column("turn", sa.Integer),
        sa.column("state", sa.Text),
        sa.column("processed_at", sa.DateTime(timezone=True)),
    )
    games = sa.table(
        "games", sa.column("id", sa.Integer), sa.column("status", sa.String), sa.column("scenario")
    )
    last = (
        sa.select(states.c.game_id, sa.func.max(states.c.turn).label("turn"))
        .group_by(states.c.game_id)
        .subquery()
    )
    rows = bind.execute(
        sa.select(games.c.scenario, states.c.state)
        .join(games, games.c.id == states.c.game_id)
        .join(last, (last.c.game_id == states.c.game_id) & (last.c.turn == states.c.turn))
        .where(games.c.status == "ended")
        .order_by(states.c.processed_at, states.c.game_id)
    ).all()
    merged: list[RecordHolder] = []
    params: dict[str, Any] = {}
    for scenario, state in rows:
        if scenario not in params:
            try:
                params[scenario] = victory_params(load_scenario(scenario)).game_end
            except Exception:  # a scenario folder since moved: the standard rules
                params[scenario] = victory_params(load_scenario("continental-rails")).game_end
        final = [RecordHolder.model_validate(r) for r in json.loads(state).get("records", [])]
        merged = merge_records(merged, final, params[scenario])
    return [r.model_dump() for r in merged]


def downgrade() -> None:
    bind = op.get_bind()
    op.drop_table("records")
    with op.batch_alter_table("reports", schema=None) as batch_op:
        batch_op.add_column(sa.Column("text", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("json", sa.Text(), nullable=True))
    reports = sa.table(
        "reports",
        sa.column("id", sa.Integer),
        sa.column("text", sa.Text),
        sa.column("json", sa.Text),
        sa.column("text_z", sa.LargeBinary),
        sa.column("json_z", sa.LargeBinary),
    )
    outbox = sa.table(
        "outbox",
        sa.column("id", sa.Integer),
        sa.column("body", sa.Text),
        sa.column("json_attachment", sa.Text),
        sa.column("report_id", sa.Integer),
    )
    for report_id, text_z, json_z in _in_batches(bind, reports, reports.c.text_z, reports.c.json_z):
        text, data = _unpack(text_z), _unpack(json_z)
        bind.execute(reports.update().where(reports.c.id == report_id).values(text=text, json=data))
        bind.execute(
            outbox.update()
            .where(outbox.c.report_id == report_id, outbox.c.body == "")
            .values(body=text)
        )
        bind.execute(
            outbox.update()
            .where(outbox.c.report_id == report_id, outbox.c.json_attachment.is_(None))
            .values(json_attachment=data)
        )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_outbox_report_id_reports"), type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_outbox_report_id"))
        batch_op.drop_column("report_id")
    with op.batch_alter_table("reports", schema=None) as batch_op:
        batch_op.alter_column("text", existing_type=sa.Text(), nullable=False)
        batch_op.alter_column("json", existing_type=sa.Text(), nullable=False)
        batch_op.drop_column("deadline")
        batch_op.drop_column("pdf_sha256")
        batch_op.drop_column("json_z")
        batch_op.drop_column("text_z")
    # Not in batch mode: SQLite would rebuild the games table, and dropping
    # the old one deletes every game's rows (ON DELETE CASCADE) on the way.
    op.drop_index("ix_games_status_due_at", table_name="games")
    op.drop_index("ix_games_status_all_in_at", table_name="games")
    op.drop_column("games", "due_at")
    op.drop_column("games", "all_in_at")
