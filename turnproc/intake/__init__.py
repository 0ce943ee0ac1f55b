"""Turnsheet intake: message -> text -> typed orders, checked on arrival, receipts.

The parser, checker and receipt are pure (no database, no clock); `submit`
is the one place that reads and writes the store.
"""
