"""Gambit: a game-description language and its interpreter (see docs/gambit.md)."""
