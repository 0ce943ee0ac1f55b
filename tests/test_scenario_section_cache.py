"""A scenario's parameter sections follow its parameters: a copy with other
parameters (`model_copy(update=...)`, which shares the object's caches) reads
its own numbers, not the original's."""

from turnproc.families.continental_rails.engine.steps.operations import operations_params
from turnproc.scenario.loader import load_scenario


def test_a_copy_with_other_parameters_reads_its_own_section() -> None:
    scenario = load_scenario("continental-rails")
    before = operations_params(scenario)
    salary = dict(scenario.params["operations"]["salary"])
    salary["profit_percent"] = salary["profit_percent"] + 7
    params = {**scenario.params, "operations": {**scenario.params["operations"], "salary": salary}}
    changed = scenario.model_copy(update={"params": params})
    assert operations_params(changed).salary.profit_percent == before.salary.profit_percent + 7
    assert operations_params(scenario) == before
