"""Mail, round three (docs/mail.md): no lock-out of a position's secret (its
columns go: forged mail could lock a player out); a game found by its
case-folded name through an index; a random key per installation, for
Message-IDs that never repeat across databases and for standby
confirmation codes.

Revision ID: 0006_mail_round_three
Revises: 0005_events_compact
Create Date: 2026-12-04 17:00:00
"""

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_mail_round_three"
down_revision: str | None = "0005_events_compact"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


LOCKOUT_COLUMNS = ("secret_locked_at", "unlock_hash", "wrong_secrets")


def upgrade() -> None:
    connection = op.get_bind()
    if connection.dialect.name == "sqlite":
        # Native ALTERs only: a batch copy of `games` or `players` drops the
        # old table, and SQLite's DROP TABLE runs the ON DELETE CASCADE of
        # every table that refers to it (reports, turns, submissions...).
        for column in LOCKOUT_COLUMNS:
            op.execute(f"ALTER TABLE players DROP COLUMN {column}")
        op.execute("ALTER TABLE games ADD COLUMN name_key VARCHAR(80) NOT NULL DEFAULT ''")
    else:
        for column in LOCKOUT_COLUMNS:
            op.drop_column("players", column)
        op.add_column("games", sa.Column("name_key", sa.String(length=80), nullable=True))
    games = sa.table("games", sa.column("id", sa.Integer), sa.column("name", sa.String))
    folded = sa.table("games", sa.column("id", sa.Integer), sa.column("name_key", sa.String))
    # Python's casefold, not SQL's lower (SQLite's knows ASCII only).
    for game_id, name in connection.execute(sa.select(games.c.id, games.c.name)).all():
        connection.execute(
            sa.update(folded)
            .where(folded.c.id == game_id)
            .values(name_key=name.casefold()[:80])
        )
    if connection.dialect.name != "sqlite":
        op.alter_column("games", "name_key", existing_type=sa.String(length=80), nullable=False)
    op.create_index(op.f("ix_games_name_key"), "games", ["name_key"], unique=False)
    installation = op.create_table(
        "installation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_installation")),
    )
    op.bulk_insert(installation, [{"id": 1, "key": secrets.token_hex(32)}])


def downgrade() -> None:
    op.drop_table("installation")
    op.drop_index(op.f("ix_games_name_key"), table_name="games")
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE games DROP COLUMN name_key")  # no batch copy: see upgrade
    else:
        op.drop_column("games", "name_key")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("wrong_secrets", sa.Integer(), server_default="0", nullable=False)
        )
        batch_op.add_column(sa.Column("unlock_hash", sa.String(length=300), nullable=True))
        batch_op.add_column(sa.Column("secret_locked_at", sa.DateTime(timezone=True)))
