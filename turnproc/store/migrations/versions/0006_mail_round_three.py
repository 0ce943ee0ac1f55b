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


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("secret_locked_at")
        batch_op.drop_column("unlock_hash")
        batch_op.drop_column("wrong_secrets")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("name_key", sa.String(length=80), nullable=True))
    connection = op.get_bind()
    games = sa.table("games", sa.column("id", sa.Integer), sa.column("name", sa.String))
    folded = sa.table("games", sa.column("id", sa.Integer), sa.column("name_key", sa.String))
    # Python's casefold, not SQL's lower (SQLite's knows ASCII only).
    for game_id, name in connection.execute(sa.select(games.c.id, games.c.name)).all():
        connection.execute(
            sa.update(folded)
            .where(folded.c.id == game_id)
            .values(name_key=name.casefold()[:80])
        )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.alter_column("name_key", existing_type=sa.String(length=80), nullable=False)
        batch_op.create_index(batch_op.f("ix_games_name_key"), ["name_key"], unique=False)
    installation = op.create_table(
        "installation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_installation")),
    )
    op.bulk_insert(installation, [{"id": 1, "key": secrets.token_hex(32)}])


def downgrade() -> None:
    op.drop_table("installation")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_name_key"))
        batch_op.drop_column("name_key")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("wrong_secrets", sa.Integer(), server_default="0", nullable=False)
        )
        batch_op.add_column(sa.Column("unlock_hash", sa.String(length=300), nullable=True))
        batch_op.add_column(sa.Column("secret_locked_at", sa.DateTime(timezone=True)))
