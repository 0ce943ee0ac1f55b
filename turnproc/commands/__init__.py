"""Subcommands of the command line, one module per area; each has `register`."""
