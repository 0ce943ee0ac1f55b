#!/bin/sh
# gen.sh FROM TO: one 18MS and one 18GA game for each seed FROM..TO, into
# games/ (ENGINE_DIR as for driver.rb). Player counts and optional rules
# follow the seed: 18MS 3-4 players, or_11 on two seeds in three; 18GA 3-5
# players, the four optional rules in turn, all of them on one seed in four.
cd "$(dirname "$0")" || exit 1
mkdir -p games
for s in $(seq $1 $2); do
  n=$((3 + s % 2)); r=""
  if [ $((s % 3)) -ne 0 ]; then r="or_11"; fi
  timeout 300 nice ruby -I shim driver.rb 18MS $n $s games/ms-$s.json $r 2>>games/errors.log
  n=$((3 + s % 3)); r=""
  case $((s % 4)) in
    0) r="double_yellow_first_or soft_rust_4t";;
    1) r="new_georgia_florida_home cotton_port";;
    2) r="double_yellow_first_or new_georgia_florida_home cotton_port soft_rust_4t";;
    3) r="";;
  esac
  timeout 300 nice ruby -I shim driver.rb 18GA $n $s games/ga-$s.json $r 2>>games/errors.log
done
