"""An 18xx game played by mail against real mail servers, as the moderator
and the players see it: the moderator uses only the command line (`game new`,
`mail ingest --imap`, `mail send`), the players read their IMAP inboxes and
send sheets over SMTP. Shared by the 18MS and 18GA end-to-end tests, with the
plan of orders a recorded game's log becomes."""

import json
import re
from email.message import EmailMessage
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.g18xx_fixtures import load_recorded
from tests.g18xx_orders_from_log import mail_orders
from turnproc.families.g18xx.engine.game import Game
from turnproc.families.g18xx.moves import legal_moves
from turnproc.families.g18xx.orders import apply_orders
from turnproc.families.g18xx.replay import standing_actions
from turnproc.families.g18xx.titles.load import new_game

from .mail_players import Client, body_text, cli, new_game_by_mail
from .mailservers import MailWorld

SEATS = {  # seat: (address, secret)
    1: ("ann@example.org", "alpha1one2three3"),
    2: ("bob@example.org", "bravo2two3four4"),
    3: ("cy@example.org", "charlie3three4five5"),
    4: ("di@example.org", "delta4four5six6"),
}


class Order(NamedTuple):
    """Orders one player mails at once, and the number of actions they make
    (with the passes the moderator makes for the players after him)."""

    seat: int
    orders: str
    actions: int


def recorded_orders(
    name: str, title: str, options: dict[str, str] | None = None
) -> tuple[list[tuple[int, str]], Game]:
    """A recorded game's orders, seats numbered from 1 in the log's order, and
    the game they reach."""
    data = load_recorded(name)
    seat = {p["id"]: n for n, p in enumerate(data["players"], 1)}

    def renumber(action: dict[str, Any]) -> dict[str, Any]:
        action = dict(action)
        if action["entity_type"] == "player":
            action["entity"] = seat[action["entity"]]
        action["auto_actions"] = [renumber(a) for a in action.get("auto_actions", [])]
        return action

    game = new_game(title, sorted(seat.values()), options or {})
    game.recorded_revenue_stands = True
    orders = mail_orders(game, [renumber(a) for a in standing_actions(data["actions"])])
    assert game.ended
    return orders, game


def recorded_plan(
    name: str, title: str, options: dict[str, str] | None = None
) -> tuple[list[Order], dict[str, int], str]:
    """A recorded game's orders, seats numbered from 1 in the log's order, with
    the final scores and end reason the orders reach. A PASS when nothing else
    is legal is made by the moderator without a mail (docs/18xx.md): it is
    counted with the order before it, whose mail sets it off."""
    orders, game = recorded_orders(name, title, options)
    check = new_game(title, game.players, options or {})
    check.recorded_revenue_stands = True
    plan: list[Order] = []
    for who, order in orders:
        automatic = (
            order == "PASS" and plan and plan[-1].seat != who and legal_moves(check, who).only_pass
        )
        if automatic:
            plan[-1] = plan[-1]._replace(actions=plan[-1].actions + 1)
        else:
            plan.append(Order(who, order, 1))
        assert apply_orders(check, who, order).refused is None
    return plan, {str(p): s for p, s in game.scores().items()}, str(game.end_reason)


def grouped(plan: list[Order]) -> list[Order]:
    """Consecutive orders of one player in one mail (not across passes the
    moderator makes for the others between them)."""
    mails: list[Order] = []
    for order in plan:
        last_passes_for_others = bool(mails) and mails[-1].actions > len(
            mails[-1].orders.splitlines()
        )
        if mails and mails[-1].seat == order.seat and not last_passes_for_others:
            last = mails[-1]
            mails[-1] = Order(
                last.seat, last.orders + "\n" + order.orders, last.actions + order.actions
            )
        else:
            mails.append(order)
    return mails


class MailedGame:
    """One game by mail: the moderator's commands and the players' mail
    programs. Environment and working directory are set on `monkeypatch`."""

    def __init__(
        self,
        name: str,
        seats: int,
        world: MailWorld,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        self.name = name
        self.players = {n: SEATS[n] for n in range(1, seats + 1)}
        self.world = world
        self.tmp_path = tmp_path
        self.monkeypatch = monkeypatch
        self.capsys = capsys
        self.clients: dict[int, Client] = {}

    def cli(self, *argv: str) -> str:
        return cli(self.capsys, *argv)

    def start(self, scenario: str, *options: str) -> None:
        """`game new` from a players file, then the welcome mails sent
        (mail_players.new_game_by_mail)."""
        _, self.clients = new_game_by_mail(
            self.world,
            self.tmp_path,
            self.monkeypatch,
            self.capsys,
            self.name,
            self.players,
            ("--scenario", scenario, *options),
        )

    def export(self) -> dict[str, Any]:
        exported: dict[str, Any] = json.loads(self.cli("game", "export", self.name, "--json"))
        return exported

    def ingest(self, expected: dict[str, int]) -> list[dict[str, Any]]:
        """`mail ingest --imap` with the verdicts expected, then `mail send`."""
        done = json.loads(self.cli("mail", "ingest", "--imap", "--json"))
        assert done["verdicts"] == expected, done["messages"]
        self.cli("mail", "send")
        messages: list[dict[str, Any]] = done["messages"]
        return messages

    def your_move(self, seat: int, move: int) -> EmailMessage:
        found = self.clients[seat].find(rf"^\[{self.name}\] Your move \(move {move},")
        assert found, f"player {seat} has no your-move mail for move {move}"
        return found[-1]

    def receipt_mail(self, seat: int, sent: str) -> EmailMessage:
        replies = [m for m in self.clients[seat].inbox() if m["In-Reply-To"] == sent]
        assert len(replies) == 1, f"player {seat}: {len(replies)} receipts"
        return replies[0]

    def receipt_to(self, seat: int, sent: str) -> str:
        return body_text(self.receipt_mail(seat, sent))

    def sheet(self, move: int, seat: int, orders: str) -> str:
        secret = self.players[seat][1]
        return (
            f"TURNSHEET game: {self.name} turn: {move} player: {seat} secret: {secret}\n"
            f"{orders}\nEND\n"
        )

    def filled(self, your_move: EmailMessage, seat: int, orders: str) -> str:
        """The sheet of a your-move mail with the secret and `orders` written in."""
        found = re.search(r"^TURNSHEET game:.*?^END\s*$", body_text(your_move), re.M | re.S)
        assert found, "the your-move mail holds no sheet"
        blank = found.group(0)
        assert f"player: {seat} secret: ________" in blank
        filled = re.sub(r"secret:\s*_+", f"secret: {self.players[seat][1]}", blank, count=1)
        return filled.replace("\nEND", f"\n{orders}\nEND", 1)

    def mail_in_batches(self, move: int, mails: list[Order], batch: int) -> str:
        """Each mail's sheet sent with the move number its your-move mail
        would carry, `batch` mails before each ingest; the last receipt."""
        sent_ids: list[tuple[int, str]] = []
        for start in range(0, len(mails), batch):
            chunk = mails[start : start + batch]
            sent_ids = []
            for seat, orders, actions in chunk:
                message = EmailMessage()
                message["Subject"] = f"move {move}"
                message.set_content(self.sheet(move, seat, orders))
                sent_ids.append((seat, self.clients[seat].send(message)))
                move += actions
            messages = self.ingest({"accepted": len(chunk)})
            assert [m["message_id"] for m in messages] == [sent for _, sent in sent_ids]
        last_seat, last_sent = sent_ids[-1]
        return self.receipt_to(last_seat, last_sent)
