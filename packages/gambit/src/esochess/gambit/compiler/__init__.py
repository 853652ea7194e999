"""The compiler to closures and instructions (see build.py)."""

from esochess.gambit.compiler.build import Compiler

__all__ = ["Compiler"]
