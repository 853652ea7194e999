"""Chespel: chess evaluation rules compiled into a chess engine (see docs/chespel.md)."""
