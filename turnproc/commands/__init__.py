"""Subcommands of the command line, one module per area; each has `register`.

A module imports only the standard library at its top and its layer inside
the handler that uses it: every command registers all of them, and
`turnproc --help` or a cron `mail ingest` should not load the database,
reports, web pages or engines the other commands use
(tests/test_cli_start.py).
"""
