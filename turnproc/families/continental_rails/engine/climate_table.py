"""5 The economic climate table (climate.toml), shared by every step that
needs interest rates, credit margins or the market's mood."""

from pydantic import BaseModel


class ClimateLevel(BaseModel):
    name: str
    market: str
    loan_rate: int  # percent a turn charged on loans
    margin_permille: int  # credit margin, per thousand of assets


class ClimateTable(BaseModel):
    """climate.toml; other keys of the file belong to the climate step."""

    levels: list[ClimateLevel]

    def index(self, name: str) -> int:
        for i, level in enumerate(self.levels):
            if level.name == name:
                return i
        raise KeyError(name)
