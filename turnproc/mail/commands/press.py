"""PRESS: a player's announcement for the next report's news (rules 9.1;
docs/mail.md, section 4)."""

from turnproc.core.text import clean, neutralised
from turnproc.families.registry import family_of
from turnproc.mail.commands.letter import IngestOutcome, Letter, Refused
from turnproc.mail.commands.syntax import Command
from turnproc.pipeline.stored import scenario_for
from turnproc.store import repository as repo
from turnproc.store.models import Game, Player

MAX_ANNOUNCEMENT_CHARS = 2000
# Per player and turn: announcements printed.
PRESS_PER_TURN = 3


def press(letter: Letter, command: Command, game: Game, player: Player) -> IngestOutcome:
    """PRESS: an announcement for the next report's news (9.1)."""
    if game.status != "active":
        raise Refused(f"game {game.name} is {game.status}; it prints no more news")
    letter.within_turn_cap("press", game, player.position, PRESS_PER_TURN, "announcements")
    text = neutralised("\n".join(clean(line) for line in command.body).strip())
    if not text:
        raise Refused("the announcement is empty", "write it on the lines after the PRESS line")
    if len(text) > MAX_ANNOUNCEMENT_CHARS:
        raise Refused(
            f"the announcement has {len(text)} characters; at most "
            f"{MAX_ANNOUNCEMENT_CHARS} are printed",
            "shorten it",
        )
    anonymous = "anonymous" in command.flags or game.anonymous
    family = family_of(scenario_for(game.scenario))
    event = family.announcement(None if anonymous else player.position, text, anonymous)
    repo.add_events(letter.session, game.id, game.current_turn, [event], origin="moderator")
    repo.log_action(
        letter.session,
        game_id=game.id,
        turn=game.current_turn,
        action="announcement",
        now=letter.received_at,
        details={
            "position": player.position,
            "anonymous": anonymous,
            "submission": letter.submission_id,
        },
    )
    who = "anonymously" if anonymous else f"as {player.character} (#{player.position})"
    reply = (
        f"OK: your announcement will be printed in the turn {game.current_turn} report, "
        f"{who}:\n\n" + "\n".join(f"  {line}" for line in text.splitlines()) + "\n"
    )
    letter.reply(
        f"[{game.name}] OK: announcement for the turn {game.current_turn} report",
        reply,
        game=game,
        position=player.position,
    )
    detail = f"PRESS: announcement from player {player.position} for turn {game.current_turn}"
    return letter.settle("press", detail, answered=True, game=game, position=player.position)
