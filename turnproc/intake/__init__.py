"""Intake: a turnsheet by mail, CLI or web -> which game and position, whether
the secret is right, how often an address may write; then the family's
turnsheet parses and checks it.

`extract` finds the sheet's text in a message, `auth` keeps the secrets and
the failure limits, `submit` is the one place that reads and writes the store.
"""
