#!/usr/bin/env python3
"""Checks a king-pair table against the fusekishogi.com front end's contract
(../shared/docs/site-format.md): format string, 1,296 "kb,kw" keys with v in [0, 1], the band's
keys present among the pairs, model naming the network as iterN (or "uniform"), and the per-square
heat-map values. With --ours, also fusekilab's band rule (the band is the pairs closest to even;
the published tables chose theirs by re-measured games). Usage:
site_table_contract.py [--ours] TABLE.json [BAND_SIZE] [iterN]"""
import json
import re
import sys

ours = "--ours" in sys.argv
if ours:
    sys.argv.remove("--ours")
t = json.load(open(sys.argv[1]))
band_size = int(sys.argv[2]) if len(sys.argv) > 2 else 48
model = sys.argv[3] if len(sys.argv) > 3 else None
fail = []
if t.get("format") != "king_pair_table/1":
    fail.append("format is not king_pair_table/1")
pairs, band = t.get("pairs"), t.get("band")
if not isinstance(pairs, dict) or not isinstance(band, list):
    fail.append("pairs (object) and band (array) must exist")
else:
    files, sente_ranks, gote_ranks = "123456789", "fghi", "abcd"
    want = {f"{a}{r},{b}{s}" for a in files for r in sente_ranks for b in files for s in gote_ranks}
    if set(pairs) != want:
        fail.append(f"{len(pairs)} pair keys, not the 1,296 'kb,kw' keys")
    bad = [k for k, p in pairs.items() if not 0 <= p.get("v", -1) <= 1]
    if bad:
        fail.append(f"v missing or outside [0, 1]: {bad[:3]}")
    if len(band) != band_size or len(set(band)) != len(band):
        fail.append(f"band has {len(band)} keys, expected {band_size} distinct")
    missing = [k for k in band if k not in pairs]
    if missing:
        fail.append(f"band keys not among the pairs: {missing[:3]}")
    # The band is the pairs closest to even: none outside it is closer than the farthest in it.
    if ours and not missing and band:
        worst = max(abs(pairs[k]["v"] - 0.5) for k in band)
        closer = [k for k, p in pairs.items() if k not in band and abs(p["v"] - 0.5) < worst - 1e-12]
        if closer:
            fail.append(f"pairs closer to even than the band's farthest: {closer[:3]}")
m = t.get("model", "")
found = re.search(r"iter\d+", m)  # the site matches the iterN it contains
if not (found or m == "uniform"):
    fail.append(f"model {m!r} contains no iterN and is not uniform")
if model is not None and (found.group(0) if found else m) != model:
    fail.append(f"model {m!r}, expected {model!r}")
for side, ranks in (("black", "fghi"), ("white", "abcd")):
    values = t.get(f"{side}_king_value_pt")
    keys = {f"{f}{r}" for f in "123456789" for r in ranks}
    if not isinstance(values, dict) or set(values) != keys:
        fail.append(f"{side}_king_value_pt: not the 36 squares of the camp")
    elif not all(isinstance(v, (int, float)) and -100 <= v <= 100 for v in values.values()):
        fail.append(f"{side}_king_value_pt: values outside [-100, 100] percentage points")
if fail:
    print("site table contract: " + "; ".join(fail))
    sys.exit(1)
print(f"site table contract: OK ({sys.argv[1]}, model {m}, band {len(band)})")
