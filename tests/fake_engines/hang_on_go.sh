#!/bin/bash
# A USI engine that completes the handshake, then never answers a search.
while IFS= read -r line; do
  case "$line" in
    usi) echo "id name hang_on_go"; echo "usiok" ;;
    isready) echo "readyok" ;;
    go*) sleep 600 ;;
    quit) exit 0 ;;
  esac
done
