"""Sequential play by mail (the 18xx games; docs/18xx.md, docs/mail.md).

A sequential game is a row in the ordinary games list (its seats are the
players table, so the turnsheet header, secrets, sender checks and refusal
rate limits are those of Continental Rails) linked to the family's own game
row (turnproc/store/g18xx.py), whose stored moves replayed are the game.

A mail whose turnsheet names a sequential game is checked against the live
game and applied at once, in the transaction that gives the stored mail its
verdict and queues the outbox (`submit`). The game row is locked first
(SELECT ... FOR UPDATE), so two mails for one game are applied one after the
other, each against the position the other left. After every change:

- the standing orders of the players to move are carried out (`carry_out_standing`);
- each player hears when a round ends;
- the player to move gets a "your move" mail with his sheet, and his clock
  (`move_hours`) starts; `tick` reminds him when a quarter of it is left and,
  when it runs out, passes for him where the rules allow a pass, otherwise
  lets the computer player move, otherwise tells the moderator.

The clock lives in the family's row (`move_due`), not in the game's
`deadline`, which is the Continental Rails turn runner's.
The game row's `current_turn` is the number of the next move: the sheet of
a "your move" mail carries it, and a sheet for another number is refused, so
an old sheet mailed again never moves a game that went on. It counts every
action applied and every action taken back (`store.move_number`), so no
number is used twice: a sheet written before an UNDO never applies after it.

The package's modules: create.py (a new game), intake.py (a mail's orders),
change.py (after every change), standing.py, log.py (the log and NOTIFY),
undo.py, clock.py, position.py (the position as text and the answers).
"""

from turnproc.families.g18xx.report.rules_pdf import pdf_name as rules_pdf_name
from turnproc.sequential.clock import MAX_MOVE_HOURS, set_clock, tick
from turnproc.sequential.create import Seat, create_game
from turnproc.sequential.intake import STOCK_ACTIONS, moderator_move, submit
from turnproc.sequential.log import MAX_LOG_LINES, NOTIFY_MODES, happened
from turnproc.sequential.position import (
    COMMANDS_HELP,
    Outcome,
    describe,
    export,
    family_of_game,
    help_text,
    page_link,
    position_text,
    round_label,
    rules_answer,
    sheet,
    what_you_may_do,
)
from turnproc.sequential.standing import MAX_STANDING_MOVES, STANDING_HELP
from turnproc.sequential.undo import MAX_UNDOS_PER_ROUND, moderator_undo
from turnproc.store import g18xx as store

__all__ = [
    "COMMANDS_HELP",
    "MAX_LOG_LINES",
    "MAX_MOVE_HOURS",
    "MAX_STANDING_MOVES",
    "MAX_UNDOS_PER_ROUND",
    "NOTIFY_MODES",
    "STANDING_HELP",
    "STOCK_ACTIONS",
    "Outcome",
    "Seat",
    "create_game",
    "describe",
    "export",
    "family_of_game",
    "happened",
    "help_text",
    "moderator_move",
    "moderator_undo",
    "page_link",
    "position_text",
    "round_label",
    "rules_answer",
    "rules_pdf_name",
    "set_clock",
    "sheet",
    "store",
    "submit",
    "tick",
    "what_you_may_do",
]
