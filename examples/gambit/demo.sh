#!/usr/bin/env bash
# Gambit demo (`make demo`): check the nine example games, then play some of them —
# a scripted human game, AI players, legal-move listing, record/replay and a playout.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "-- gambit check on every example game"
for game in *.gmb; do
  gambit check "$game"
  echo "   $game: ok"
done

echo
echo "-- tic-tac-toe, two humans reading a script"
printf '1\n4\n2\n5\n3\n' | gambit run tic-tac-toe.gmb | tail -n 12

echo
echo "-- which squares are legal after 5 and 1? (look-ahead prunes occupied squares)"
gambit moves tic-tac-toe.gmb --after 5,1

echo
echo "-- nim: MCTS against random"
gambit run nim.gmb --players mcts:200,random --seed 3 | tail -n 6

echo
echo "-- blackjack with card notation, a random player"
gambit run blackjack.gmb --players random --seed 1

echo
echo "-- card attack (choose[2]), recorded and replayed byte for byte"
gambit run card-attack.gmb --players random --seed 2 --quiet --hash --record "$tmp/r.json" > "$tmp/a.txt"
gambit run card-attack.gmb --replay "$tmp/r.json" --quiet --hash > "$tmp/b.txt"
tail -n 3 "$tmp/a.txt"
cmp "$tmp/a.txt" "$tmp/b.txt" && echo "   replay identical"

echo
echo "-- 50 random tic-tac-toe games"
gambit playout tic-tac-toe.gmb -n 50
