"""18xx games: a game's title, options and seats, and its moves in order.

Revision ID: 0003_g18xx
Revises: 0002
Create Date: 2026-12-01 15:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_g18xx"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "g18xx_games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("title", sa.String(length=20), nullable=False),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("end_reason", sa.String(length=40), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_g18xx_games")),
        sa.UniqueConstraint("name", name=op.f("uq_g18xx_games_name")),
    )
    op.create_table(
        "g18xx_moves",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("origin", sa.String(length=16), nullable=False),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["g18xx_games.id"],
            name=op.f("fk_g18xx_moves_game_id_g18xx_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_g18xx_moves")),
        sa.UniqueConstraint("game_id", "seq", name=op.f("uq_g18xx_moves_game_id_seq")),
    )
    with op.batch_alter_table("g18xx_moves", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_g18xx_moves_game_id"), ["game_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("g18xx_moves", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_g18xx_moves_game_id"))
    op.drop_table("g18xx_moves")
    op.drop_table("g18xx_games")
