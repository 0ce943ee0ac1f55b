"""The database tables: games, players, turn snapshots, submissions, orders,
events, ledger, standings, reports, the outbox, the records over all games and
the moderator's log.

ORM classes are storage only; the game itself lives in `GameState` (stored as
JSON in `turn_states`). Constraint names come from one naming convention so
Alembic migrations stay stable on SQLite and PostgreSQL alike.
"""

import zlib
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    event,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Mapper, mapped_column
from sqlalchemy.types import TypeDecorator

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes on both databases (SQLite keeps no zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the database")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _game_fk() -> Any:
    return ForeignKey("games.id", ondelete="CASCADE")


class Game(Base):
    """One game: its scenario and seed, where it stands, its schedule and policy."""

    __tablename__ = "games"
    __table_args__ = (
        Index("ix_games_status_due_at", "status", "due_at"),
        Index("ix_games_status_all_in_at", "status", "all_in_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    # The name case-folded, kept by the ORM (below): a turnsheet or command
    # names its game in any case, and finds it by this index, not by reading
    # every game.
    name_key: Mapped[str] = mapped_column(String(80), index=True)
    scenario: Mapped[str] = mapped_column(String(400))
    seed: Mapped[int] = mapped_column(BigInteger)
    current_turn: Mapped[int] = mapped_column(Integer, default=1)
    status: Mapped[str] = mapped_column(String(16), default="active")  # active, ended, paused
    deadline: Mapped[datetime | None] = mapped_column(UTCDateTime)
    grace_minutes: Mapped[int] = mapped_column(Integer, default=0)
    turn_days: Mapped[int] = mapped_column(Integer, default=7)  # schedule: days between turns
    reminder_hours: Mapped[str] = mapped_column(String(80), default="48,12")
    missed_turn_limit: Mapped[int] = mapped_column(Integer, default=2)  # then offer to standby
    # Who gives a missed position its orders: computer, idle (none), standing (the last sent).
    missed_turn_policy: Mapped[str] = mapped_column(
        String(16), default="computer", server_default="computer"
    )
    anonymous: Mapped[bool] = mapped_column(Boolean, default=False)
    early_run: Mapped[bool] = mapped_column(Boolean, default=True)
    claimed_by: Mapped[str | None] = mapped_column(String(120))
    claimed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # The deadline plus the grace: kept by the ORM (below) so that the due
    # scan finds every game past it with one range scan of an index.
    due_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # When every human player still in had orders in force for the current
    # turn (None: not all in). Set where orders, players or the turn change
    # (repository.refresh_all_in), so the due scan looks for early runs among
    # these games only, and checks each against the orders themselves.
    all_in_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


def game_name_key(name: str) -> str:
    """What a game's name is looked up by: case-folded (a casefold can grow a
    name, e.g. "ß" to "ss"; the column keeps the first 80 characters)."""
    return name.casefold()[:80]


@event.listens_for(Game, "before_insert")
@event.listens_for(Game, "before_update")
def _set_due_at(_mapper: Mapper[Game], _connection: Any, game: Game) -> None:
    game.name_key = game_name_key(game.name)
    game.due_at = (
        None
        if game.deadline is None
        else game.deadline + timedelta(minutes=game.grace_minutes or 0)
    )


class Player(Base):
    """Who plays a position: contact details, hashed secret, missed turns."""

    __tablename__ = "players"
    __table_args__ = (UniqueConstraint("game_id", "position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(_game_fk(), index=True)
    position: Mapped[int] = mapped_column(Integer)
    character: Mapped[str] = mapped_column(String(80), default="")
    real_name: Mapped[str] = mapped_column(String(120), default="")
    email: Mapped[str | None] = mapped_column(String(254))
    phone: Mapped[str] = mapped_column(String(40), default="")
    secret_hash: Mapped[str | None] = mapped_column(String(300))
    human: Mapped[bool] = mapped_column(Boolean, default=False)
    missed_turns: Mapped[int] = mapped_column(Integer, default=0)
    standby: Mapped[bool] = mapped_column(Boolean, default=False)  # offered to a standby player
    # 3.1: the address is shown to the other players only if the player agreed
    # (players file column share_email, or the CONTACT mail command).
    share_email: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class StandbyPlayer(Base):
    """A volunteer waiting to take over a position whose player stopped sending
    orders; `position` is set once they have taken one."""

    __tablename__ = "standby_players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(_game_fk(), index=True)
    email: Mapped[str] = mapped_column(String(254))
    real_name: Mapped[str] = mapped_column(String(120), default="")
    added_at: Mapped[datetime] = mapped_column(UTCDateTime)
    position: Mapped[int | None] = mapped_column(Integer)
    taken_turn: Mapped[int | None] = mapped_column(Integer)


class TurnState(Base):
    """The state at the start of `turn` (turn 1: the new game), as engine JSON."""

    __tablename__ = "turn_states"
    __table_args__ = (UniqueConstraint("game_id", "turn"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(_game_fk())
    turn: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(Text)
    sha256: Mapped[str] = mapped_column(String(64))
    program_version: Mapped[str] = mapped_column(String(40))
    processed_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Submission(Base):
    """A turnsheet as received: the raw message, who sent it, the verdict."""

    __tablename__ = "submissions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int | None] = mapped_column(_game_fk(), index=True)
    turn: Mapped[int | None] = mapped_column(Integer)
    position: Mapped[int | None] = mapped_column(Integer)
    message_id: Mapped[str | None] = mapped_column(String(998), unique=True)
    sender: Mapped[str] = mapped_column(String(254), default="")
    received_at: Mapped[datetime] = mapped_column(UTCDateTime)
    raw: Mapped[bytes | None] = mapped_column(LargeBinary)
    text: Mapped[str] = mapped_column(Text, default="")
    verdict: Mapped[str] = mapped_column(String(24))  # accepted, errors, refused, duplicate
    receipt: Mapped[str] = mapped_column(Text, default="")
    # How often processing was started: a message cut short twice is quarantined.
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class OrdersInForce(Base):
    """The orders a position has in force for a turn (PlayerOrders JSON)."""

    __tablename__ = "orders_in_force"
    __table_args__ = (UniqueConstraint("game_id", "turn", "position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(_game_fk())
    turn: Mapped[int] = mapped_column(Integer)
    position: Mapped[int] = mapped_column(Integer)
    submission_id: Mapped[int | None] = mapped_column(
        ForeignKey("submissions.id", ondelete="SET NULL")
    )
    orders: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(16))  # player, standing, computer, moderator
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime)


class EventRow(Base):
    """A typed event of a turn (or a moderator adjustment before it), in news order."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("game_id", "turn", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(_game_fk())
    turn: Mapped[int] = mapped_column(Integer)
    seq: Mapped[int] = mapped_column(Integer)
    origin: Mapped[str] = mapped_column(String(16))  # turn, moderator
    kind: Mapped[str] = mapped_column(String(60))
    position: Mapped[int | None] = mapped_column(Integer)
    railroad: Mapped[str | None] = mapped_column(String(20))
    visibility: Mapped[str] = mapped_column(String(10))
    data: Mapped[str] = mapped_column(Text)


class RejectionRow(Base):
    """An order refused or cut while resolving a turn."""

    __tablename__ = "rejections"
    __table_args__ = (UniqueConstraint("game_id", "turn", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(_game_fk())
    turn: Mapped[int] = mapped_column(Integer)
    seq: Mapped[int] = mapped_column(Integer)
    position: Mapped[int] = mapped_column(Integer)
    order_index: Mapped[int] = mapped_column(Integer)
    code: Mapped[str] = mapped_column(String(60))
    data: Mapped[str] = mapped_column(Text)


class LedgerRow(Base):
    """One money movement of a turn or of a moderator adjustment."""

    __tablename__ = "ledger"
    __table_args__ = (UniqueConstraint("game_id", "turn", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(_game_fk())
    turn: Mapped[int] = mapped_column(Integer)
    seq: Mapped[int] = mapped_column(Integer)
    origin: Mapped[str] = mapped_column(String(16))  # turn, moderator
    src: Mapped[str] = mapped_column(String(40))
    dst: Mapped[str] = mapped_column(String(40))
    amount: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str] = mapped_column(String(200))
    ref: Mapped[str] = mapped_column(String(200), default="")


class Standing(Base):
    """Net worth and victory points of each position in a stored state."""

    __tablename__ = "standings"

    game_id: Mapped[int] = mapped_column(_game_fk(), primary_key=True)
    turn: Mapped[int] = mapped_column(Integer, primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    character: Mapped[str] = mapped_column(String(80))
    cash: Mapped[int] = mapped_column(BigInteger)
    net_worth: Mapped[int] = mapped_column(BigInteger)
    vp_total: Mapped[int] = mapped_column(Integer)
    vp_robber_baron: Mapped[int] = mapped_column(Integer)
    vp_rail_mogul: Mapped[int] = mapped_column(Integer)
    vp_rail_builder: Mapped[int] = mapped_column(Integer)
    vp_rail_magnate: Mapped[int] = mapped_column(Integer)
    vp_rail_prodigal: Mapped[int] = mapped_column(Integer)
    vp_rail_baron: Mapped[int] = mapped_column(Integer)


def pack(text: str) -> bytes:
    """Report text as stored: UTF-8, deflated (text and JSON shrink 4-7 times)."""
    return zlib.compress(text.encode("utf-8"), 6)


def unpack(data: bytes) -> str:
    return zlib.decompress(data).decode("utf-8")


class Report(Base):
    """A rendered report of one position for one turn (turn 0: a new game's
    opening report), stored once: the text and JSON deflated, the PDF's
    SHA-256, and in `pdf` the PDF as rendered until every message carrying
    it is sent (reports nobody is mailed keep the digest only). Mailed after
    that, the PDF is rendered again from the stored facts and the printed
    `deadline` and checked against the digest (docs/scale.md)."""

    __tablename__ = "reports"
    __table_args__ = (UniqueConstraint("game_id", "turn", "position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(_game_fk())
    turn: Mapped[int] = mapped_column(Integer)
    position: Mapped[int] = mapped_column(Integer)
    text_z: Mapped[bytes] = mapped_column(LargeBinary)
    json_z: Mapped[bytes] = mapped_column(LargeBinary)
    pdf: Mapped[bytes | None] = mapped_column(LargeBinary)
    pdf_sha256: Mapped[str | None] = mapped_column(String(64))
    deadline: Mapped[str] = mapped_column(String(40), default="", server_default="")

    @property
    def text(self) -> str:
        return unpack(self.text_z)

    @property
    def json(self) -> str:
        return unpack(self.json_z)


class OutboxMessage(Base):
    """Mail waiting to go out; written in the turn's transaction, sent after commit."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_status_next_attempt_at", "status", "next_attempt_at"),)
    # A message with `report_id` carries that report: its JSON (unless
    # `json_attachment` is set) and its PDF are the attachments and, for report
    # mail (kind "report"), its text begins the body (`body` holds what
    # follows it); nothing of the report is copied into the outbox.

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    idempotency_key: Mapped[str] = mapped_column(String(200), unique=True)
    game_id: Mapped[int | None] = mapped_column(_game_fk(), index=True)
    turn: Mapped[int | None] = mapped_column(Integer)
    position: Mapped[int | None] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(20))  # report, receipt, welcome, reminder, ...
    to_address: Mapped[str] = mapped_column(String(254))
    subject: Mapped[str] = mapped_column(String(300))
    body: Mapped[str] = mapped_column(Text)
    pdf: Mapped[bytes | None] = mapped_column(LargeBinary)
    pdf_name: Mapped[str | None] = mapped_column(String(120))
    json_attachment: Mapped[str | None] = mapped_column(Text)
    report_id: Mapped[int | None] = mapped_column(
        ForeignKey("reports.id", ondelete="SET NULL"), index=True
    )
    in_reply_to: Mapped[str | None] = mapped_column(String(998))
    # queued, sending (in flight: handed to the server, no answer yet), sent,
    # failed (retried later), dead (given up), ambiguous (in flight when the
    # connection or the sender died: may or may not have arrived), cancelled
    status: Mapped[str] = mapped_column(String(12), default="queued")
    # host:pid/run of the sending run that claimed it; kept while ambiguous
    sending_by: Mapped[str | None] = mapped_column(String(120))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class RecordRow(Base):
    """11.3 A record over all games that have ended in this database (the
    scores a new game starts with), kept up to date as each game ends."""

    __tablename__ = "records"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    category: Mapped[str] = mapped_column(String(40))
    score: Mapped[int] = mapped_column(Integer)
    character: Mapped[str] = mapped_column(String(80))
    game: Mapped[str] = mapped_column(String(80))


class ModeratorLog(Base):
    """Every moderator action, with the reason given."""

    __tablename__ = "moderator_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int | None] = mapped_column(_game_fk(), index=True)
    turn: Mapped[int | None] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(40))
    reason: Mapped[str] = mapped_column(Text, default="")
    details: Mapped[str] = mapped_column(Text, default="{}")
    at: Mapped[datetime] = mapped_column(UTCDateTime)


class Game18xx(Base):
    """An 18xx game (sequential play): its title, options and seats; the game
    itself is the replay of its moves."""

    __tablename__ = "g18xx_games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    title: Mapped[str] = mapped_column(String(20))
    options: Mapped[str] = mapped_column(Text, default="{}")  # JSON
    players: Mapped[str] = mapped_column(Text)  # JSON list of {"id", "name"}
    status: Mapped[str] = mapped_column(String(16), default="active")  # active, ended
    end_reason: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # Played by mail: the row in the games list that holds its seats (players).
    game_id: Mapped[int | None] = mapped_column(_game_fk(), unique=True)
    move_hours: Mapped[int] = mapped_column(Integer, default=48, server_default="48")
    move_due: Mapped[datetime | None] = mapped_column(UTCDateTime)
    reminded: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    standing: Mapped[str] = mapped_column(Text, default="{}", server_default="{}")  # JSON


class Move18xx(Base):
    """One applied action of an 18xx game, in order."""

    __tablename__ = "g18xx_moves"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(
        ForeignKey("g18xx_games.id", ondelete="CASCADE"), index=True
    )
    seq: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)  # JSON, the engine's action format
    origin: Mapped[str] = mapped_column(String(16))  # import, mail, moderator, standing, clock
    applied_at: Mapped[datetime] = mapped_column(UTCDateTime)
    player: Mapped[int | None] = mapped_column(Integer)  # whose orders made it
    submission_id: Mapped[int | None] = mapped_column(Integer)  # the mail that carried it
    undone_at: Mapped[datetime | None] = mapped_column(UTCDateTime)  # undone: not replayed


class Installation(Base):
    """One row: a random key made when the database was created. Message-IDs
    include a digest of it, so two installations (or two databases of one
    moderator) never give two messages the same Message-ID; the standby
    confirmation codes are keyed with it."""

    __tablename__ = "installation"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(64))
