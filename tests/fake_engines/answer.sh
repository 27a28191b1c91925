#!/bin/bash
# A USI engine that answers every search with the fixed text given as $1 ("bestmove $1").
while IFS= read -r line; do
  case "$line" in
    usi) echo "id name answer"; echo "usiok" ;;
    isready) echo "readyok" ;;
    go*) echo "info depth 1"; echo "bestmove $1" ;;
    quit) exit 0 ;;
  esac
done
