"""The outbox records which sender has a message in flight, so a run after a
killed `mail send` knows at once that the message it left behind may or may
not have arrived (and that the rest can go).

Revision ID: 0003_mail_servers
Revises: 0003_g18xx
Create Date: 2026-12-01 15:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_mail_servers"
down_revision: str | None = "0003_g18xx"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.add_column(sa.Column("sending_by", sa.String(length=120), nullable=True))


def downgrade() -> None:
    # A message marked "ambiguous" goes back to the older schema's "sending":
    # it may or may not have arrived, which the older release reports as stuck.
    op.execute("UPDATE outbox SET status = 'sending' WHERE status = 'ambiguous'")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_column("sending_by")
