"""Why the rules refuse an action: a code, the rule it comes from, and words a
player can read."""


class Refused(ValueError):
    """An action the 18Dixie rules do not allow (the section is in `rule`)."""

    def __init__(self, code: str, rule: str, message: str) -> None:
        super().__init__(f"{message} ({rule})")
        self.code = code
        self.rule = rule
