"""Real mail servers on 127.0.0.1 for the tests.

`MailDevel` runs the pure-Python mail-devel server (SMTP and IMAP, one mailbox
per address). `Dovecot` runs Debian's dovecot (IMAP and LMTP, mail stored as
the user `nobody`) as a direct child of the test, fed by an aiosmtpd SMTP
server on loopback that delivers over LMTP. Both offer the same interface.
"""

import abc
import asyncio
import contextlib
import email
import imaplib
import secrets
import shutil
import smtplib
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

PASSWORD = "s3cret pass"

# How often a server is started on fresh ports before the test gives up: other
# test processes on the machine pick free ports too, and one may take a port
# between our pick and our server's bind.
START_ATTEMPTS = 5


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# How long a server started for a test may take to answer: a bound for a
# server that never starts, not a speed, so it is far beyond what a machine
# busy with other work needs (aiosmtpd's own default is 5 s).
STARTUP_S = 120.0


def wait_for_port(port: int, timeout: float = STARTUP_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listening on 127.0.0.1:{port} after {timeout}s")


def imap_login_works(port: int, password: str) -> bool:
    """Whether the IMAP server on `port` lets a user in with `password`: a
    password no other server knows proves the port is held by our own server,
    not by another test's that took the port first."""
    try:
        imap = imaplib.IMAP4("127.0.0.1", port, timeout=30)
    except (OSError, imaplib.IMAP4.error):  # nothing there, or no IMAP server
        return False
    try:
        imap.login("probe@example.org", password)
        return True
    except imaplib.IMAP4.error:
        return False
    finally:
        with contextlib.suppress(OSError, imaplib.IMAP4.error):
            imap.logout()


def started(process: "subprocess.Popen[bytes]", ports: Iterable[int], password: str) -> bool:
    """Wait for `process` to listen on every port; true when it does and its
    IMAP (the first port) takes `password`, false when it died or another
    server answers there instead."""
    ports = list(ports)
    try:
        for port in ports:
            wait_for_port(port)
    except RuntimeError:
        return False
    return imap_login_works(ports[0], password) and process.poll() is None


def server_log(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[-2000:]
    except OSError:
        return ""


class MailWorld(abc.ABC):
    """SMTP for everyone, one IMAP mailbox per address."""

    smtp_port: int
    imap_port: int

    def smtp_url(self) -> str:
        return f"smtp://127.0.0.1:{self.smtp_port}"

    def imap_url(self, address: str) -> str:
        return (
            f"imap://{quote(address, safe='')}:{quote(PASSWORD, safe='')}"
            f"@127.0.0.1:{self.imap_port}/INBOX"
        )

    @abc.abstractmethod
    def stop(self) -> None: ...


class MailDevel(MailWorld):
    def __init__(self) -> None:
        self.password = f"{PASSWORD} {secrets.token_hex(8)}"
        self.log = Path(tempfile.mkstemp(prefix="turnproc-mail-devel-", suffix=".log")[1])
        for _ in range(START_ATTEMPTS):
            self.smtp_port = free_port()
            self.imap_port = free_port()
            with self.log.open("wb") as log:
                self.process = subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "mail_devel",
                        "--host",
                        "127.0.0.1",
                        "--multi-user",
                        "--password",
                        self.password,
                        "--no-http",
                        "--smtp-port",
                        str(self.smtp_port),
                        "--imap-port",
                        str(self.imap_port),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=log,
                )
            if started(self.process, (self.imap_port, self.smtp_port), self.password):
                return
            self.process.terminate()
            self.process.wait(timeout=30)
        raise RuntimeError(
            f"mail-devel did not start in {START_ATTEMPTS} attempts:\n{server_log(self.log)}"
        )

    def imap_url(self, address: str) -> str:
        return (
            f"imap://{quote(address, safe='')}:{quote(self.password, safe='')}"
            f"@127.0.0.1:{self.imap_port}/INBOX"
        )

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        self.log.unlink(missing_ok=True)


DOVECOT_CONF = """\
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
protocols = imap lmtp
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:{root}/mail/%u
default_internal_user = nobody
default_login_user = nobody
first_valid_uid = 1
passdb {{
  driver = static
  args = password={password}
}}
userdb {{
  driver = static
  args = uid=nobody gid=nogroup home={root}/mail/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {imap_port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = 127.0.0.1
    port = {lmtp_port}
  }}
}}
protocol lmtp {{
  postmaster_address = postmaster@example.org
}}
"""


class _LmtpRelay:
    """aiosmtpd handler: every message accepted over SMTP goes to dovecot by LMTP."""

    def __init__(self, lmtp_port: int) -> None:
        self.lmtp_port = lmtp_port

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with smtplib.LMTP("127.0.0.1", self.lmtp_port) as lmtp:
            lmtp.sendmail(envelope.mail_from, envelope.rcpt_tos, envelope.original_content)
        return "250 OK delivered"


def dovecot_available() -> bool:
    return shutil.which("dovecot") is not None or Path("/usr/sbin/dovecot").exists()


class Dovecot(MailWorld):
    def __init__(self) -> None:
        from aiosmtpd.controller import Controller

        # Not under pytest's tmp_path: dovecot's processes run as `nobody` and
        # must be able to reach the mail folder.
        root = Path(tempfile.mkdtemp(prefix="turnproc-dovecot-"))
        self.root = root
        for sub in ("run", "state", "mail"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        (root / "mail").chmod(0o777)
        root.chmod(0o755)
        self.password = f"{PASSWORD.replace(' ', '_')}_{secrets.token_hex(8)}"
        conf = root / "dovecot.conf"
        binary = shutil.which("dovecot") or "/usr/sbin/dovecot"
        for _ in range(START_ATTEMPTS):
            self.imap_port = free_port()
            self.lmtp_port = free_port()
            conf.write_text(
                DOVECOT_CONF.format(
                    root=root,
                    password=self.password,
                    imap_port=self.imap_port,
                    lmtp_port=self.lmtp_port,
                )
            )
            self.process = subprocess.Popen(
                [binary, "-F", "-c", str(conf)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            if started(self.process, (self.imap_port, self.lmtp_port), self.password):
                break
            self.process.terminate()
            self.process.wait(timeout=30)
        else:
            raise RuntimeError(
                f"dovecot did not start in {START_ATTEMPTS} attempts:\n"
                f"{server_log(root / 'dovecot.log')}"
            )
        self.smtp_port = free_port()
        self.controller = Controller(
            _LmtpRelay(self.lmtp_port),
            hostname="127.0.0.1",
            port=self.smtp_port,
            ready_timeout=STARTUP_S,
        )
        self.controller.start()

    def imap_url(self, address: str) -> str:
        return (
            f"imap://{quote(address, safe='')}:{quote(self.password, safe='')}"
            f"@127.0.0.1:{self.imap_port}/INBOX"
        )

    def stop(self) -> None:
        self.controller.stop()
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)


class TroubledSmtp:
    """An aiosmtpd server on 127.0.0.1 that misbehaves on cue, the way real
    servers do: a limit of messages per connection (then "421" and the
    connection closed), a connection dropped at the DATA command, after the
    whole text arrived but before the reply, or right after the 250; a reply
    held back (for killing the sender while a message is in flight); every
    reply held back until so many connections have begun (`start_together`),
    so that that many senders are surely sending at once.

    The cues count messages over the server's life, from 1: `drop_at_data`
    counts DATA commands, the others count texts received. `received` lists
    the Message-ID of every text that arrived whole (answered or not),
    `accepted` those answered 250; `connections` counts the connections that
    began a mail transaction."""

    def __init__(
        self,
        *,
        per_connection: int | None = None,
        drop_at_data: Iterable[int] = (),
        drop_before_reply: Iterable[int] = (),
        drop_after_reply: Iterable[int] = (),
        hold_reply: Iterable[int] = (),
        start_together: int = 0,
    ) -> None:
        from aiosmtpd.controller import Controller
        from aiosmtpd.smtp import SMTP

        self.per_connection = per_connection
        self.drop_at_data = set(drop_at_data)
        self.drop_before_reply = set(drop_before_reply)
        self.drop_after_reply = set(drop_after_reply)
        self.hold_reply = set(hold_reply)
        self.start_together = start_together
        self.received: list[str] = []
        self.accepted: list[str] = []
        self.connections = 0
        self.data_commands = 0
        self.holding = threading.Event()
        world = self

        class Troubled(SMTP):  # type: ignore[misc]
            delivered_here = 0
            counted = False

            async def smtp_MAIL(self, arg: str) -> None:
                if not self.counted:  # not the controller's own probe at start
                    self.counted = True
                    world.connections += 1
                limit = world.per_connection
                if limit is not None and self.delivered_here >= limit:
                    await self.push("421 4.7.0 Too many messages on one connection, closing")
                    self.transport.close()
                    return
                await super().smtp_MAIL(arg)

            async def smtp_DATA(self, arg: str) -> None:
                world.data_commands += 1
                if world.data_commands in world.drop_at_data:
                    self.transport.close()
                    return
                await super().smtp_DATA(arg)

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                message = email.message_from_bytes(envelope.original_content)
                world.received.append(str(message["Message-ID"]))
                arrival = len(world.received)
                if arrival in world.drop_before_reply:
                    server.transport.abort()
                    return "250 never sent: the connection is gone"
                deadline = time.monotonic() + 60
                while world.connections < world.start_together and time.monotonic() < deadline:
                    await asyncio.sleep(0.01)
                if arrival in world.hold_reply:
                    world.holding.set()
                    await asyncio.sleep(600)  # until the sender's connection goes away
                if arrival in world.drop_after_reply:
                    asyncio.get_running_loop().call_soon(server.transport.close)
                server.delivered_here += 1
                world.accepted.append(str(message["Message-ID"]))
                return "250 2.0.0 OK queued"

        class TroubledController(Controller):  # type: ignore[misc]
            def factory(self) -> Any:
                return Troubled(self.handler, **self.SMTP_kwargs)

        self.smtp_port = free_port()
        self.controller = TroubledController(
            Handler(), hostname="127.0.0.1", port=self.smtp_port, ready_timeout=STARTUP_S
        )
        self.controller.start()

    def smtp_url(self) -> str:
        return f"smtp://127.0.0.1:{self.smtp_port}"

    def stop(self) -> None:
        self.controller.stop()
