#!/bin/bash
# A USI engine whose searches report the scores given as arguments, one search each in turn
# ("cp 57", "mate -3", or "none": no score), then bestmove resign. A search's last score line is
# its result: an earlier one is printed first to show it is superseded.
scores=("$@")
n=0
while IFS= read -r line; do
  case "$line" in
    usi) echo "id name scores"; echo "usiok" ;;
    isready) echo "readyok" ;;
    go*)
      s=${scores[$((n % ${#scores[@]}))]}
      n=$((n + 1))
      if [ "$s" = none ]; then
        echo "info string no score"
      else
        echo "info depth 1 score cp 999 pv 7g7f"
        echo "info depth 2 seldepth 3 score $s nodes 10 pv 7g7f"
      fi
      echo "bestmove resign" ;;
    quit) exit 0 ;;
  esac
done
