"""Whole 18xx games played by players who read only the mails they receive:
over real SMTP and IMAP (tests/mailservers.py), the moderator using only the
command line (`game new`, `mail ingest --imap`, `mail send`), each player
reading his inbox and answering the one mail that gives him a move with an
order among the legal moves it lists (tests/g18xx_mail_readers.py), never
asking the engine. Every move they send is accepted, to the game's end. One
player writes an order the mail did not list once a round, on purpose, and
is answered every time: the reason, and his legal moves again."""

import email
import email.policy
import imaplib
import random
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from .g18xx_mail_play import MailedGame
from .g18xx_mail_readers import Listing, choose, illegal_order, listing
from .mail_players import body_text
from .mailservers import MailWorld


class Inbox:
    """A player's mail program that shows the mails that came since he last
    looked (by IMAP UID)."""

    def __init__(self, world: MailWorld, address: str) -> None:
        self.url = urlparse(world.imap_url(address))
        self.port = world.imap_port
        self.seen = 0

    def new(self) -> list[EmailMessage]:
        imap = imaplib.IMAP4("127.0.0.1", self.port, timeout=30)
        try:
            imap.login(unquote(self.url.username or ""), unquote(self.url.password or ""))
            imap.select("INBOX")
            _, data = imap.uid("SEARCH", f"UID {self.seen + 1}:*")
            out = []
            for uid in sorted(int(u) for u in (data[0] or b"").decode().split()):
                if uid <= self.seen:
                    continue  # "n:*" always matches the highest UID
                _, parts = imap.uid("FETCH", str(uid), "(BODY.PEEK[])")
                raw = next(p[1] for p in parts if isinstance(p, tuple))
                # lines as a mail program shows them (dovecot keeps CRLF)
                raw = raw.replace(b"\r\n", b"\n")
                parsed = email.message_from_bytes(raw, policy=email.policy.default)
                assert isinstance(parsed, EmailMessage)
                out.append(parsed)
                self.seen = uid
            return out
        finally:
            imap.logout()


def play_by_reading(
    game: MailedGame, seats: int, cheater: int, max_moves: int
) -> tuple[int, int, str]:
    """Play until no mail gives anyone a move. Returns the moves sent, the
    refusals the cheater got, and the text of the last mail that ended it."""
    inboxes = {s: Inbox(game.world, game.players[s][0]) for s in range(1, seats + 1)}
    rngs = {s: random.Random(s) for s in inboxes}
    presides: dict[int, set[str]] = {s: set() for s in inboxes}
    acted = dict.fromkeys(inboxes, 0)
    pending: dict[int, tuple[EmailMessage, Listing]] = {}
    cheated: set[str] = set()
    refusals = sent = 0
    last_text = ""
    while sent < max_moves:
        for _ in range(3):
            for seat, inbox in inboxes.items():
                for mail in inbox.new():
                    text = body_text(mail)
                    last_text = text if "The game is over" in text else last_text
                    found = listing(text, seat)
                    if found is not None and found.move > acted[seat]:
                        pending[seat] = (mail, found)
            if pending or last_text:
                break
            # mail the last run left in the outbox goes with the next run,
            # as the moderator's cron sends it
            game.cli("mail", "send")
        if not pending:
            break
        assert len(pending) == 1, f"mails give several players a move: {sorted(pending)}"
        seat, (mail, moves) = pending.popitem()
        if seat == cheater and moves.round not in cheated:
            cheated.add(moves.round)
            wrong = illegal_order(moves)
            assert wrong not in moves.orders()
            game.clients[seat].send(_reply(game, mail, seat, wrong))
            game.ingest({"rejected": 1})
            answer = [m for m in inboxes[seat].new() if "REFUSED" in str(m["Subject"])]
            assert len(answer) == 1, f"no answer to {wrong!r}"
            assert str(answer[0]["Subject"]).strip().startswith(f"[{game.name}] REFUSED: ")
            again = listing(body_text(answer[0]), seat)
            assert again is not None and again.orders() == moves.orders(), body_text(answer[0])
            refusals += 1
            mail, moves = answer[0], again
        order = choose(moves, seat, rngs[seat], presides[seat])
        game.clients[seat].send(_reply(game, mail, seat, order))
        acted[seat] = moves.move
        game.ingest({"accepted": 1})
        sent += 1
    return sent, refusals, last_text


def _reply(game: MailedGame, mail: EmailMessage, seat: int, order: str) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = "Re: " + str(mail["Subject"])
    message.set_content(game.filled(mail, seat, order))
    return message


# Each game is played once, on one server: 18MS on mail-devel, 18GA on
# Debian's dovecot where installed (always in CI), else on mail-devel.
@pytest.mark.parametrize(
    ("title", "seats", "mail_world"),
    [("18ms", 3, "mail-devel"), ("18ga", 4, "dovecot or mail-devel")],
    indirect=["mail_world"],
)
def test_players_who_read_only_their_mail_play_to_the_end(
    title: str,
    seats: int,
    mail_world: MailWorld,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    game = MailedGame(f"{title}-readers", seats, mail_world, tmp_path, monkeypatch, capsys)
    game.start(title, "--move-hours", "72", "--seed", "5")
    sent, refusals, final = play_by_reading(game, seats, cheater=2, max_moves=1500)
    exported = game.export()
    assert exported["status"] == "ended", f"{sent} moves sent; the game goes on"
    assert "The game is over" in final
    for seat, score in exported["position"]["scores"].items():
        assert f"player {seat}: ${score}" in final
    assert refusals >= 10  # a refusal a round, every one answered
