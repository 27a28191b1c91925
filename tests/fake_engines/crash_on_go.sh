#!/bin/bash
# A USI engine that completes the handshake, then dies when asked to search.
while IFS= read -r line; do
  case "$line" in
    usi) echo "id name crash_on_go"; echo "usiok" ;;
    isready) echo "readyok" ;;
    go*) exit 3 ;;
    quit) exit 0 ;;
  esac
done
