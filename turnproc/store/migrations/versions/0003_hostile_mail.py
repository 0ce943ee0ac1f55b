"""Hostile mail: a stored message's processing attempts (quarantine after two
cut short), and a position's secret lock-out after repeated wrong secrets.

Revision ID: 0003_hostile_mail
Revises: 0003_scale
Create Date: 2026-12-01 15:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_hostile_mail"
down_revision: str | None = "0003_scale"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("attempts", sa.Integer(), server_default="0", nullable=False)
        )
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("secret_locked_at", sa.DateTime(timezone=True)))
        batch_op.add_column(sa.Column("unlock_hash", sa.String(length=300)))
        batch_op.add_column(
            sa.Column("wrong_secrets", sa.Integer(), server_default="0", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("wrong_secrets")
        batch_op.drop_column("unlock_hash")
        batch_op.drop_column("secret_locked_at")
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_column("attempts")
