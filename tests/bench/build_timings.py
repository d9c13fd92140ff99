"""Where a Cargo build's time went, from the report `cargo build --timings` writes
(`target/cargo-timings/cargo-timing.html`): the build's wall time, the seconds of every unit
summed, the slowest units, and the time by group (wasmtime and Cranelift, the browser's CDP
crates, the RDP crates, Warden itself with the nested build of its plugins, the rest).

    cargo build --release -p warden --timings
    .venv/bin/python tests/bench/build_timings.py [target/cargo-timings/cargo-timing.html] [--top 12]

`tests/run` prints it after the lint build, so every CI run shows where its build went; the
table of a first build is in docs/benchmarks.md ("The first build").
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

GROUPS = [
    ("wasmtime, Cranelift, wasm tools", ("wasmtime", "cranelift", "wasmparser", "wast", "wit-", "wasm-", "wasmprinter",
                                          "pulley", "regalloc", "cap-", "wasi", "winch")),
    ("browser (chromiumoxide)", ("chromiumoxide",)),
    ("RDP (ironrdp, sspi, picky, yuv)", ("ironrdp", "sspi", "picky", "yuv")),
    ("SSH (russh)", ("russh",)),
]


def group(name: str) -> str:
    if name == "warden":
        return "warden (lib, bin, and its build script: the plugins' nested build and precompile)"
    for label, prefixes in GROUPS:
        if name.startswith(prefixes):
            return label
    return "everything else"


def units(report: Path) -> list[dict]:
    text = report.read_text()
    found = re.search(r"const UNIT_DATA = (\[.*?\]);\n", text, re.S)
    if not found:
        sys.exit(f"{report}: no UNIT_DATA in the report; is it a cargo --timings report?")
    return json.loads(found.group(1))


def label(unit: dict) -> str:
    what = unit.get("target", "").strip() or "lib"
    if unit.get("mode") == "run-custom-build":
        what = "build script run"
    return f"{unit['name']} {unit['version']} ({what})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", nargs="?", type=Path, default=Path("target/cargo-timings/cargo-timing.html"))
    parser.add_argument("--top", type=int, default=12)
    opts = parser.parse_args()
    data = units(opts.report)
    wall = max((u["start"] + u["duration"] for u in data), default=0.0)
    total = sum(u["duration"] for u in data)
    print(f"build: {wall:.0f} s wall, {len(data)} units, {total:.0f} unit-seconds ({opts.report})")
    print(f"{'seconds':>8}  {'starts at':>9}  slowest units")
    for unit in sorted(data, key=lambda u: -u["duration"])[: opts.top]:
        print(f"{unit['duration']:8.1f}  {unit['start']:9.1f}  {label(unit)}")
    by_group: Counter[str] = Counter()
    for unit in data:
        by_group[group(unit["name"])] += unit["duration"]
    print(f"{'seconds':>8}  by group")
    for name, seconds in by_group.most_common():
        print(f"{seconds:8.0f}  {name}")


if __name__ == "__main__":
    main()
