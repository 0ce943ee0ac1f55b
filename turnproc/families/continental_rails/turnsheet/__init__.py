"""The Continental Rails turnsheet: the order language, its vocabulary, the
checks against the live game, the receipt and the sheet sent with every report.

Pure (no database, no clock): `turnproc.intake.submit` is the one place
that reads and writes the store.
"""
