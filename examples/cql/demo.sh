#!/usr/bin/env bash
# cql demo: shipped queries over the shipped PGN files in examples/pgn (run by `make demo`):
# the first 300 lichess games of 2018 and a collection of mate problems.
set -euo pipefail
cd "$(dirname "$0")"
GAMES=../pgn/lichess-carlsen-2018.pgn
PROBLEMS=../pgn/problems-mate-in-2-3-4.pgn
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for q in en-passant queen-fork mate captures-statistic; do
  echo "-- $q: $(head -1 $q.cql | sed 's|^// ||')"
  cql --gamenumber 1-300 -o "$OUT/$q.pgn" "$q.cql" "$GAMES"
done
for q in underpromotion smothered-mate; do
  echo "-- $q (mate problems): $(head -1 $q.cql | sed 's|^// ||')"
  cql -o "$OUT/$q.pgn" "$q.cql" "$PROBLEMS"
done
echo "-- first game found by en-passant.cql (tags, then the movetext line with the marker):"
sed -n '1,/^$/p' "$OUT/en-passant.pgn" | head -7
grep -m1 "{ CQL }" "$OUT/en-passant.pgn" || true
echo "-- a query error is reported at the offending token (exit code 2):"
printf 'cql() x = 3 if x then check\n' > "$OUT/err.cql"
cql -o "$OUT/none.pgn" "$OUT/err.cql" "$GAMES" 2>&1 | sed "s|$OUT/||" || true
