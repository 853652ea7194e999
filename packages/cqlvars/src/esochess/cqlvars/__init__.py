"""CQL-style chess queries over PGN files (see docs/cql.md)."""
