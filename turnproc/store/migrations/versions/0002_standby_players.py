"""Standby players: volunteers who take over positions whose players stopped
sending orders; and each game's missed-turn policy (who gives a missed position
its orders).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 05:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "missed_turn_policy",
                sa.String(length=16),
                server_default="computer",
                nullable=False,
            )
        )
    op.create_table(
        "standby_players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("real_name", sa.String(length=120), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("position", sa.Integer(), nullable=True),
        sa.Column("taken_turn", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_standby_players_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_standby_players")),
    )
    with op.batch_alter_table("standby_players", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_standby_players_game_id"), ["game_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("standby_players", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_standby_players_game_id"))
    op.drop_table("standby_players")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("missed_turn_policy")
