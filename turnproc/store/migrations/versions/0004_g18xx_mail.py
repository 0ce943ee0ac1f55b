"""18xx games by mail: the game row in the ordinary games list, the clock and
standing orders of a game, and who made each move and whether it was undone.

Revision ID: 0004_g18xx_mail
Revises: 0003_hostile_mail
Create Date: 2026-12-01 16:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_g18xx_mail"
down_revision: str | None = "0003_hostile_mail"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("g18xx_games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("game_id", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("move_hours", sa.Integer(), nullable=False, server_default="48")
        )
        batch_op.add_column(sa.Column("move_due", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(
            sa.Column("reminded", sa.Integer(), nullable=False, server_default="0")
        )
        batch_op.add_column(
            sa.Column("standing", sa.Text(), nullable=False, server_default="{}")
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_g18xx_games_game_id_games"),
            "games",
            ["game_id"],
            ["id"],
            ondelete="CASCADE",
        )
        batch_op.create_unique_constraint(batch_op.f("uq_g18xx_games_game_id"), ["game_id"])
    with op.batch_alter_table("g18xx_moves", schema=None) as batch_op:
        batch_op.add_column(sa.Column("player", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("submission_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("undone_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("g18xx_moves", schema=None) as batch_op:
        batch_op.drop_column("undone_at")
        batch_op.drop_column("submission_id")
        batch_op.drop_column("player")
    with op.batch_alter_table("g18xx_games", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_g18xx_games_game_id"), type_="unique")
        batch_op.drop_constraint(batch_op.f("fk_g18xx_games_game_id_games"), type_="foreignkey")
        batch_op.drop_column("standing")
        batch_op.drop_column("reminded")
        batch_op.drop_column("move_due")
        batch_op.drop_column("move_hours")
        batch_op.drop_column("game_id")
