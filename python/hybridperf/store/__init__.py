"""The results store (SQLite beside the profile files) and its exports to other tools."""
