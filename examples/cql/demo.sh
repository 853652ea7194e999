#!/usr/bin/env bash
# cql demo: a few shipped queries over the first 300 master games (run by `make demo`).
set -euo pipefail
cd "$(dirname "$0")"
PGN=../../../shared/data/pgn/masters-pgnmentor.pgn
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for q in en-passant underpromotion queen-fork carlsen-wins-black captures-statistic; do
  echo "-- $q: $(head -1 $q.cql | sed 's|^// ||')"
  cql --gamenumber 1-300 -o "$OUT/$q.pgn" "$q.cql" "$PGN"
done
echo "-- first game found by en-passant.cql (tags, then the movetext line with the marker):"
sed -n '1,/^$/p' "$OUT/en-passant.pgn" | head -7
grep -m1 "{ CQL }" "$OUT/en-passant.pgn" || true
echo "-- a query error is reported at the offending token (exit code 2):"
printf 'cql() x = 3 if x then check\n' > "$OUT/err.cql"
cql -o "$OUT/none.pgn" "$OUT/err.cql" "$PGN" 2>&1 | sed "s|$OUT/||" || true
