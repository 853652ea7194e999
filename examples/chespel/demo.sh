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
