#!/usr/bin/env bash
# `make demo`: runs each language's demo on the shipped examples (examples/*/demo.sh).
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.."
echo "== esochess fen: the shared board core"
esochess fen show 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1'
esochess fen check 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' && echo "valid"
for demo in examples/*/demo.sh; do
  echo
  echo "== $demo"
  bash "$demo"
done
