#!/usr/bin/env bash
# Chespel demo (run by `make demo` from the repository root, venv bin on PATH).
set -euo pipefail
cd "$(dirname "$0")"

echo "-- chespel check: every shipped program checks clean (no output, exit 0)"
for program in *.chp; do
  chespel check "$program"
  echo "   $program: ok"
done

echo "-- a program with mistakes: every error is reported, with source line and caret"
demo_dir="$(mktemp -d)"
trap 'rm -rf "$demo_dir"' EXIT
printf 'module evaluation\n\nsym rule broken:\n\tpiece p with player == me:\n\t\tscore p.cells.length;\n\t\tif (me.castledSide(3)) score 1;\n\t\tscore q.value "unknown q";\n' \
  > "$demo_dir/broken.chp"
(cd "$demo_dir" && chespel check broken.chp 2>&1) || echo "   (exit status $? = compile errors)"

# ---- the engine (back end): build, evaluate, choose moves, speak UCI, play a match
echo "-- chespel build: one self-contained executable (python-chess embedded)"
chespel build positional.chp -o "$demo_dir/positional"
echo "-- the executable runs with the standard library alone (python3 -S -E)"
printf 'eval v rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1\n' \
  | python3 -S -E "$demo_dir/positional"
echo "-- {FEN}: board, score, the engine's move (mate in one), the new position"
printf 'module search\nmaxTime = 1\n' | cat material.chp - > "$demo_dir/quick.chp"
echo 'r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4' \
  | chespel run "$demo_dir/quick.chp" | sed -n '10,12p'
echo "-- the opening module of full.chp answers 1.e4 with 1...e5 at once"
echo 'fen rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1' | chespel run full.chp
echo "-- UCI mode, as a GUI or python-chess sees it"
printf 'uci\nposition startpos moves e2e4\ngo depth 3\n' \
  | "$demo_dir/positional" --uci | grep -v '^info depth [12] '
echo "-- chespel match: positional.chp against material.chp (2 short games)"
chespel match positional.chp material.chp --games 2 --movetime 0.1 --max-plies 16
