"""Game-independent, pure building blocks: seeded randomness, errors, the ledger."""
