import pytest

from turnproc.scenario.loader import load_scenario
from turnproc.scenario.model import Scenario


@pytest.fixture(scope="session")
def scenario() -> Scenario:
    return load_scenario("continental-rails")
