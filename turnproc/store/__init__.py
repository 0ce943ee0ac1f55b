"""The database: tables, queries, the state as rows, migrations."""
