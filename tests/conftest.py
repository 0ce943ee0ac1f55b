import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

from turnproc.scenario.loader import load_scenario
from turnproc.scenario.model import Scenario

from .mailservers import Dovecot, MailDevel, MailWorld, dovecot_available

# Property tests are deterministic and never timed: the same examples on every
# run (derandomize: drawn from a fixed seed per test, no example database) and
# no per-example deadline, so a slow, busy machine cannot fail them. A test's
# own @settings may change max_examples, never these.
settings.register_profile("turnproc", deadline=None, derandomize=True, database=None)
settings.load_profile("turnproc")


@pytest.fixture(scope="session")
def scenario() -> Scenario:
    return load_scenario("continental-rails")


@pytest.fixture(params=["mail-devel", "dovecot"])
def mail_world(request: pytest.FixtureRequest) -> Iterator[MailWorld]:
    """Real mail servers on 127.0.0.1: mail-devel always; Debian's dovecot where
    installed (CI installs it and sets TURNPROC_REQUIRE_DOVECOT=1). A test
    that runs once, on one server, asks for "dovecot or mail-devel": dovecot
    where installed, else mail-devel (and fails where dovecot is required)."""
    either = request.param == "dovecot or mail-devel"
    if request.param == "dovecot" or either:
        if not dovecot_available():
            if os.environ.get("TURNPROC_REQUIRE_DOVECOT") == "1":
                pytest.fail("dovecot is required here (TURNPROC_REQUIRE_DOVECOT=1) but missing")
            if not either:
                pytest.skip(
                    "dovecot is not installed (apt-get install dovecot-imapd dovecot-lmtpd)"
                )
        world: MailWorld = Dovecot() if dovecot_available() else MailDevel()
    else:
        world = MailDevel()
    try:
        yield world
    finally:
        world.stop()
