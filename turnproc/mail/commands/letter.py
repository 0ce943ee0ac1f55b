"""One stored message on its way to a verdict, and what every player
command does with it: settle the verdict, queue the answer, refuse within
the limits on answers (docs/mail.md, section 5), and find and authenticate
the game and player a command names. The commands themselves live in the
modules beside this one, one per command family."""

import dataclasses
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import Message

from sqlalchemy.orm import Session

from turnproc.core.text import for_terminal
from turnproc.intake.auth import FAILURE_WINDOW, failure_decision
from turnproc.intake.secret import secret_problem, secret_used_elsewhere
from turnproc.mail.alerts import refusal_digest
from turnproc.mail.commands.syntax import COMMANDS_HELP, Command
from turnproc.mail.headers import address, header
from turnproc.store import repository as repo
from turnproc.store.models import Game, Player

# HELP is answered to anyone (a new player has no secret yet), at most this
# often per address, so forged mail cannot turn the program into a spammer.
HELP_ANSWERS_PER_DAY = 3
# Answers (receipts, refusals, HELP, STANDBY) to addresses that no player
# registered, over all of them together: forged senders cannot make the
# program a source of backscatter beyond this.
STRANGER_ANSWERS_PER_HOUR = 20
STRANGER_WINDOW = timedelta(hours=1)


def shown(text: str) -> str:
    """A sender's text quoted in a reply: short, one line, printable."""
    short = " ".join(for_terminal(text).split())[:40]
    return repr(short if len(text) <= 40 else short + "...")


@dataclass(frozen=True)
class IngestOutcome:
    """What happened to one inbound message."""

    origin: str
    message_id: str
    submission_id: int | None  # None: a duplicate, stored before under that id
    verdict: str
    detail: str  # one line for the moderator
    answered: bool  # a reply was queued in the outbox
    alert: str | None = None  # what the moderator was told, if anything

    def as_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


class Refused(Exception):
    """A command refused: `reason` and `hint` make the answer."""

    def __init__(self, reason: str, hint: str = "", *, real_game: bool = True) -> None:
        super().__init__(reason)
        self.reason = reason
        self.hint = hint
        self.real_game = real_game  # False: the message names no game of ours


class Letter:
    """One stored message on its way to a verdict, inside one transaction."""

    def __init__(
        self,
        session: Session,
        submission_id: int,
        raw: bytes,
        head: Message,
        received_at: datetime,
        moderator: str | None,
        synthetic: bool,
        message_id: str,
        origin: str,
    ) -> None:
        self.session = session
        self.submission_id = submission_id
        self.raw = raw
        self.head = head
        self.received_at = received_at
        self.moderator = moderator
        self.message_id = message_id
        self.in_reply_to = None if synthetic else message_id
        sender = address(header(head, "From"))
        self.sender = sender if len(sender) <= 254 else ""  # no answer to what cannot be stored
        self.origin = origin
        self.game_named = False  # the message named one of our games

    # --- verdicts -----------------------------------------------------------------

    def settle(
        self,
        verdict: str,
        detail: str,
        *,
        answered: bool = False,
        game: Game | None = None,
        position: int | None = None,
        alert: str | None = None,
    ) -> IngestOutcome:
        repo.update_submission(
            self.session,
            self.submission_id,
            verdict=verdict,
            game_id=game.id if game else None,
            turn=game.current_turn if game else None,
            position=position,
            sender=self.sender[:254],
            receipt=detail,
        )
        return IngestOutcome(
            origin=self.origin,
            message_id=self.message_id,
            submission_id=self.submission_id,
            verdict=verdict,
            detail=detail.splitlines()[0] if detail else "",
            answered=answered,
            alert=alert,
        )

    def reply(
        self,
        subject: str,
        body: str,
        *,
        kind: str = "receipt",
        to: str | None = None,
        game: Game | None = None,
        position: int | None = None,
        turn: int | None = None,
        pdf: bytes | None = None,
        pdf_name: str | None = None,
        json_attachment: str | None = None,
        report_id: int | None = None,
        key: str | None = None,
    ) -> None:
        repo.queue_mail(
            self.session,
            key=key or f"{kind}/inbound/{self.submission_id}",
            kind=kind,
            to_address=to or self.sender,
            subject=subject[:300],
            body=body,
            now=self.received_at,
            game_id=game.id if game else None,
            turn=turn if turn is not None else (game.current_turn if game else None),
            position=position,
            pdf=pdf,
            pdf_name=pdf_name,
            json_attachment=json_attachment,
            in_reply_to=self.in_reply_to,
            report_id=report_id,
        )

    def refuse(
        self, reason: str, hint: str, *, answer_anyone: bool, receipt: str | None = None
    ) -> IngestOutcome:
        """Refused: answered (rate-limited) if the sender may be answered.
        Someone who registered no address is answered only about one of our
        games (`answer_anyone`), within the global cap on such answers.
        `receipt`: the answer's text, when the refusal has its own."""
        registered = self.registered()
        text = receipt or (
            f"REFUSED: {reason}\n" + (f"\n{hint[:1].upper()}{hint[1:]}.\n" if hint else "")
        )
        if registered:
            text += f"\nYour message: {self.message_id}\n"
        if answer_anyone:
            text += f"\n{COMMANDS_HELP}"
        if not self.sender or not (answer_anyone or registered):
            return self.settle("ignored", f"not answered (unknown sender): {reason}")
        earlier = repo.recent_refusals(
            self.session, since=self.received_at - FAILURE_WINDOW, sender=self.sender
        )
        decision = failure_decision(earlier, self.received_at)
        alert = None
        if decision.report_to_moderator:
            alert = refusal_digest(
                self.session,
                self.moderator,
                self.sender,
                self.submission_id,
                reason,
                self.received_at,
            )
        answered = decision.answer and (registered or self.stranger_may_be_answered())
        if answered:
            self.reply(f"REFUSED: {reason}", text)
        return self.settle("refused", text, answered=answered, alert=alert)

    def stranger_may_be_answered(self) -> bool:
        """The global cap on answers to addresses no player registered."""
        since = self.received_at - STRANGER_WINDOW
        return repo.answers_to_strangers(self.session, since) < STRANGER_ANSWERS_PER_HOUR

    def unreadable(self, reason: str, hint: str) -> IngestOutcome:
        return self.refuse(reason, hint, answer_anyone=False)

    def registered(self) -> bool:
        return bool(self.sender) and bool(repo.players_by_email(self.session, self.sender))

    def known(self) -> bool:
        """A player's address, or a standby player's, confirmed by reply: not
        a stranger's."""
        return self.registered() or (
            bool(self.sender) and repo.waits_on_a_standby_list(self.session, self.sender)
        )

    def answered_too_often(self, verdict: str) -> IngestOutcome | None:
        """Commands anyone may send are answered at most HELP_ANSWERS_PER_DAY
        times a day per address, so forged mail cannot make us a spammer."""
        since = self.received_at - timedelta(days=1)
        count = repo.recent_verdicts(
            self.session, sender=self.sender, verdicts=(verdict,), since=since
        )
        if self.sender and count < HELP_ANSWERS_PER_DAY:
            return None
        detail = f"not answered: {verdict.upper()} sent too often from this address"
        return self.settle("ignored", detail)

    # --- the game and player a command names ---------------------------------------

    def game(self, key: str) -> Game:
        """The game named, its row locked (a turn run holds the same lock: an
        announcement or a standby volunteer lands in the turn that runs next)."""
        game = repo.find_game(self.session, key, lock=True)
        if game is None:
            raise Refused(
                f"there is no game {shown(key)}",
                "write the game's name as on your turnsheet",
                real_game=False,
            )
        self.game_named = True
        return game

    def authenticate(self, command: Command) -> tuple[Game, Player]:
        """The same checks as a turnsheet's header: game, player, sender, secret."""
        example = f"{command.name.upper()} game: NAME player: 3 secret: YOUR-SECRET"
        missing = [k for k in ("game", "player", "secret") if not command.fields.get(k)]
        if missing:
            raise Refused(
                f"{command.name.upper()} needs {', '.join(missing)}",
                f"write it as: {example}",
            )
        game = self.game(command.fields["game"])
        number = command.fields["player"]
        if not (number.isascii() and number.isdigit()) or len(number) > 3:
            raise Refused(f"the player {shown(number)} is not a number", f"write it as: {example}")
        position = int(number)
        try:
            player = repo.get_player(self.session, game.id, position)
        except repo.NotFound:
            raise Refused(f"game {game.name} has no player {position}") from None
        if not player.human or not player.secret_hash:
            raise Refused(f"player {position} of {game.name} is not registered to a person")
        if (player.email or "").strip().lower() != self.sender:
            if self.sender:
                secret_used_elsewhere(
                    self.session,
                    game,
                    player,
                    command.fields["secret"],
                    self.sender,
                    self.received_at,
                )
            raise Refused(
                f"{self.sender or 'this address'} is not the registered address of "
                f"player {position}",
                "send it from the address you registered",
            )
        problem = secret_problem(player, command.fields["secret"])
        if problem is not None:
            raise Refused(problem, "copy the secret from your welcome mail")
        return game, player

    def within_turn_cap(self, verdict: str, game: Game, position: int, cap: int, what: str) -> None:
        done = repo.commands_this_turn(self.session, game.id, game.current_turn, position, verdict)
        if done >= cap:
            raise Refused(
                f"player {position} has had {cap} {what} this turn, the most a player may",
                f"try again after the turn {game.current_turn} deadline",
            )
