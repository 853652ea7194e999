"""The compiled engine: checked program -> generated Python source, run by the same machine
(docs/reference/gambit.md#engines)."""

from esochess.gambit.codegen.compiler import SourceCompiler

__all__ = ["SourceCompiler"]
