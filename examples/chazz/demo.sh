#!/usr/bin/env bash
# CHAZZ demo (`make demo`): the shipped examples, run by the `chazz` command.
set -euo pipefail
cd "$(dirname "$0")"
show() { echo "\$ $*"; }

show 'echo -n a | chazz tutorial.fen'
echo -n a | chazz tutorial.fen
show 'chazz hello.fen'
chazz hello.fen
show 'chazz count.fen'
chazz count.fen
show 'chazz nonsquare.fen          # a 3x13 board'
chazz nonsquare.fen
show 'chazz to_turn.fen            # black to move: the black pawn runs first'
chazz to_turn.fen
show 'printf "echo me" | chazz cat.fen --no-prompt'
printf "echo me" | chazz cat.fen --no-prompt
show 'chazz from-bf hello.b -o hello_bf.fen && chazz hello_bf.fen'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chazz from-bf hello.b -o "$tmp/hello_bf.fen" && chazz "$tmp/hello_bf.fen"
show 'chazz count.fen --trace --max-steps 4   # trace on stderr, then the step limit'
chazz count.fen --trace --max-steps 4 2>&1 || echo "(exit status $?)"
show 'chazz nonsquare.fen --html board.html --no-open'
chazz nonsquare.fen --html "$tmp/board.html" --no-open
grep -c '<td' "$tmp/board.html" | sed 's/^/table cells in board.html: /'
