"""Events stored in less room: no index on an event's kind (no query looks
events up by kind; they are read by game and turn), and an event's data
without the fields its row has as columns (rows stored before keep them;
both read the same).

Revision ID: 0005_events_compact
Revises: 0004_contact_consent
Create Date: 2026-12-02 03:40:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0005_events_compact"
down_revision: str | None = "0004_contact_consent"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_events_kind"))


def downgrade() -> None:
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_events_kind"), ["kind"], unique=False)
