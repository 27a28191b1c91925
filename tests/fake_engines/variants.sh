#!/bin/bash
# A USI engine that offers variants the way later Fairy-Stockfish builds do in USI mode (a
# USI_Variant combo, shogi and minishogi only) and writes every setoption it gets to the file $1.
while IFS= read -r line; do
  case "$line" in
    usi)
      echo "id name variants"
      echo "option name USI_Variant type combo default shogi var shogi var minishogi"
      echo "usiok" ;;
    setoption*) echo "$line" >>"$1" ;;
    isready) echo "readyok" ;;
    go*) echo "bestmove resign" ;;
    quit) exit 0 ;;
  esac
done
