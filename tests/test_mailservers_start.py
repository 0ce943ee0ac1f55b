"""The tests' own mail servers start on ports nobody else holds: another test
process may take a free port between our pick and our server's bind, and a
test must then not talk to that other server (tests/mailservers.py)."""

import contextlib
import socket
import subprocess
import sys
import threading

from tests.mailservers import MailDevel, imap_login_works, started


def _greeting_server(sock: socket.socket) -> None:
    """An IMAP look-alike that greets and refuses every login."""
    while True:
        try:
            conn, _ = sock.accept()
        except OSError:
            return
        with conn, contextlib.suppress(OSError):  # the client may hang up first
            conn.sendall(b"* OK another test's server\r\n")
            data = conn.recv(1024)
            tag = data.split(b" ", 1)[0] or b"a"
            conn.sendall(tag + b" NO not yours\r\n")


def test_a_port_held_by_another_server_is_not_taken_for_ours() -> None:
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        threading.Thread(target=_greeting_server, args=(other,), daemon=True).start()
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            assert not imap_login_works(port, "our own password")
            assert not started(sleeper, [port], "our own password")
        finally:
            sleeper.kill()
            sleeper.wait()


def test_mail_devel_answers_its_own_password_only() -> None:
    world = MailDevel()
    try:
        assert imap_login_works(world.imap_port, world.password)
        assert not imap_login_works(world.imap_port, "s3cret pass")
    finally:
        world.stop()
    assert not imap_login_works(world.imap_port, world.password)
