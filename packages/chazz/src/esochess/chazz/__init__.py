"""CHAZZ: an esoteric language whose program is a FEN board (see docs/chazz.md)."""
