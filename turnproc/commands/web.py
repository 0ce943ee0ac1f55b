"""`turnproc web [--host 127.0.0.1] [--port 8080]`: the games' web pages (docs/web.md).

`turnproc web --link GAME --player P` prints the address of a player's own
page instead (the same link his mail carries), for the moderator to pass on.
"""

import argparse

from turnproc.core.errors import UsageError


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("web", help="serve the games' web pages (docs/web.md)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="port (8080)")
    parser.add_argument("--link", metavar="GAME", help="print a player's page link and exit")
    parser.add_argument("--player", type=int, help="the player (position) for --link")
    parser.add_argument(
        "--base", help="address the link starts with (default: web_url, else http://HOST:PORT)"
    )
    parser.set_defaults(handler=_web)


def _web(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.config import load_settings
    from turnproc.store import repository
    from turnproc.store.db import transaction

    if not 0 < args.port < 65536:
        raise UsageError("--port must be between 1 and 65535")
    settings = load_settings()
    engine = database()
    if args.link is not None:
        if args.player is None:
            raise UsageError("--link needs --player")
        from turnproc.pipeline.links import player_url
        from turnproc.web.keys import utcnow

        base = args.base or settings.web_url or f"http://{args.host}:{args.port}"
        with transaction(engine) as session:
            game = repository.get_game(session, args.link)
            player = repository.get_player(session, game.id, args.player)
            if not player.human or not player.secret_hash:
                raise UsageError(f"player {args.player} of {game.name} is not a person's")
            print(player_url(settings, base, game.id, player, utcnow()))
        return 0
    import uvicorn

    from turnproc.web.app import create_app
    from turnproc.web.serve import server_config

    uvicorn.Server(server_config(create_app(engine, settings), args.host, args.port)).run()
    return 0
