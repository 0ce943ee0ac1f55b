"""Typed events: what happened in a turn, for reports, tests and replays.

The engine never writes English; templates word these events. Every event
class has a unique `kind` and registers itself, so stored events load back into
their classes with `event_from_dict`. Events with `visibility = "private"`
concern only `position` (and, for railroad events, the railroad's directors).

Each engine step defines the events it emits in its own module under
`turnproc.families.continental_rails.engine.steps`; import
`turnproc.families.continental_rails.engine.steps` (done by `resolve`) to
register them all.
"""

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from turnproc.core.errors import EngineError

EVENT_TYPES: dict[str, type["Event"]] = {}

Visibility = Literal["public", "private"]


class Event(BaseModel):
    """Base of every event. `kind` names the class; `section` orders the news (9.1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str
    visibility: Visibility = "public"
    position: int | None = None  # the tycoon it concerns, if any
    railroad: str | None = None  # the railroad it concerns, if any

    # News order (9.1): lower first. Subclasses override.
    news_order: ClassVar[int] = 999

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        field = cls.model_fields.get("kind")
        kind = field.default if field is not None else None
        if not isinstance(kind, str) or not kind:
            raise EngineError(f"event class {cls.__name__} needs a default `kind`")
        if kind in EVENT_TYPES and EVENT_TYPES[kind] is not cls:
            raise EngineError(f"event kind {kind!r} defined twice")
        EVENT_TYPES[kind] = cls


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild a stored event (as produced by `model_dump`)."""
    cls = EVENT_TYPES.get(str(data.get("kind")))
    if cls is None:
        raise EngineError(f"unknown event kind {data.get('kind')!r}")
    return cls.model_validate(data)


class Rejection(BaseModel):
    """An order cut or refused, with a reason code and a hint for the player."""

    model_config = ConfigDict(frozen=True)

    position: int
    order_index: int  # index in the tycoon's PlayerOrders.orders; -1 if none
    order: dict[str, Any]
    # a named reason, e.g. "NOT_PRESIDENT"; see
    # families/continental_rails/engine/reasons.py
    code: str
    hint: str  # one sentence for the player on how to fix it
    cut_to: dict[str, Any] | None = None  # the order as carried out, when cut rather than refused


class ModeratorAdjustment(Event):
    """A moderator's correction between turns, logged with its reason and shown in
    the next report's news. `cash` dollars (negative: taken) move between the
    bank and `position`'s or `railroad`'s account; `shares` of `railroad` are
    given to (or taken from) `position`; `issued` changes the railroad's issued
    stock."""

    kind: Literal["moderator_adjustment"] = "moderator_adjustment"
    cash: int = 0
    shares: int = 0
    issued: int = 0
    reason: str = ""

    news_order: ClassVar[int] = 165


class Announcement(Event):
    """9.1 Press: an announcement a player sent through the moderator, printed in
    the next report. `position` is the author, or None when the author asked to
    stay anonymous (or the game hides players' names): the author's identity is
    then kept out of the event altogether. `text` is the player's own words."""

    kind: Literal["announcement"] = "announcement"
    text: str
    anonymous: bool = False

    news_order: ClassVar[int] = 166
