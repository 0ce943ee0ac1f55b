"""What a turn report needs that is not game state, as the store supplies it:
the players' contacts, announcements, the moderator's adjustments, orders
given for missed turns, a re-run's reason and the next deadline (`GameMeta`).
"""

from pydantic import BaseModel, Field


class Contact(BaseModel):
    """3.1 A player's contacts; `withhold_*` is the player's choice not to share them."""

    real_name: str = ""
    email: str = ""
    phone: str = ""
    withhold_address: bool = False
    withhold_phone: bool = False


class Announcement(BaseModel):
    """9.1 A message a player sent through the moderator for the next report."""

    position: int | None = None  # None: from the moderator
    text: str
    anonymous: bool = False


class Adjustment(BaseModel):
    """A moderator's manual correction, shown in the next report's news."""

    text: str
    reason: str = ""


class StoodIn(BaseModel):
    """Orders given for a position whose player sent none (pbem: the missed-turn
    policy): `source` is "computer" (a computer player, or no orders at all
    under the idle policy) or "standing" (the orders he last sent, again)."""

    source: str
    orders: list[str]  # as a turnsheet writes them


class Replacement(BaseModel):
    """The turn was run again after a rollback (or a re-run): this report
    replaces any report of the turn the reader had before. `reason` is the
    moderator's, "" if he gave none (docs/moderator.md, Corrections)."""

    reason: str = ""

    def sentence(self, turn: int) -> str:
        """What the report says of it, the same in the text and the PDF."""
        why = f" Reason: {self.reason.strip().rstrip('.')}." if self.reason.strip() else ""
        return (
            f"This report replaces any report of turn {turn} you had before: "
            f"the moderator ran the turn again.{why}"
        )


class GameMeta(BaseModel):
    """Everything the report needs that is not game state: who plays, and the news desk."""

    name: str = ""
    anonymous: bool = False
    contacts: dict[int, Contact] = Field(default_factory=dict)
    deadline: str = ""  # next turn's deadline, as the moderator's schedule words it
    announcements: list[Announcement] = Field(default_factory=list)
    adjustments: list[Adjustment] = Field(default_factory=list)
    stood_in: dict[int, StoodIn] = Field(default_factory=dict)  # by position
    replaces: Replacement | None = None  # the turn was run again
