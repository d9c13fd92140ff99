#!/usr/bin/env python3
"""The import graph of a Rust crate's files, and of the Python and JavaScript SDKs' files: no
cycles, and (in Rust) layers kept.

Every file of a crate is a node; a file imports another when one of its paths (a `use`, or a
path written in the code such as `crate::audit::Record` or `super::live::Live`) names an item
defined in the other file. Paths are followed through re-exports (`pub use`), so a `mod.rs` that
only declares and re-exports is not a hub that ties its children together.

Two rules, both failing the run:

1. No cycle between files. Each cycle is printed as a chain of `file:line` imports.
2. Layers. A `mod.rs` (or `lib.rs`) whose doc comment has a `Layers` heading followed by a
   numbered list, bottom layer first,

       //! ## Layers
       //! 1. **data** (`state.rs`, `types/`): ...
       //! 2. **events** (`events/`): ...

   puts every file below its directory in exactly one layer; a file may import its own layer
   and those below it, never one above. A file of the directory in no layer is an error too,
   so the list stays the map of the directory.

The SDKs' files get rule 1, reported the same way; script_graph.py finds their imports (every
Python import, deferred ones too; JavaScript's `import`, `export ... from`, `import()` and
`require()` of relative paths; its docstring says how each is resolved).

Usage: module_graph.py [--root DIR/lib.rs ...] [--python PACKAGE_DIR ...] [--js DIR ...]
With none of them it checks every crate of the workspace, sdk/python/warden_sdk and sdk/js;
with some, only those named.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from script_graph import js_graph, python_graph

# --- tokens -----------------------------------------------------------------------------------

TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*)
  | (?P<raw_string>b?r(?P<hashes>\#*)")
  | (?P<string>b?"(?:\\.|[^"\\])*")
  | (?P<char>b?'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^'\\])')
  | (?P<lifetime>'[A-Za-z_][A-Za-z0-9_]*)
  | (?P<ident>r\#[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>[0-9][0-9A-Za-z_.]*)
  | (?P<path_sep>::)
  | (?P<punct>.)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass
class Tok:
    kind: str
    text: str
    line: int


def tokenize(src: str) -> list[Tok]:
    """Identifiers, `::` and punctuation; comments, strings and chars dropped."""
    out: list[Tok] = []
    pos, line = 0, 1
    while pos < len(src):
        m = TOKEN.match(src, pos)
        if m is None:  # pragma: no cover - the last alternative matches any char
            pos += 1
            continue
        kind = m.lastgroup
        text = m.group(0)
        if kind == "hashes":
            kind = "raw_string"
        if kind == "block_comment":
            depth, end = 1, m.end()
            while depth and end < len(src):
                if src.startswith("/*", end):
                    depth, end = depth + 1, end + 2
                elif src.startswith("*/", end):
                    depth, end = depth - 1, end + 2
                else:
                    end += 1
            text = src[pos:end]
        elif kind == "raw_string":
            closing = '"' + m.group("hashes")
            end = src.find(closing, m.end())
            end = len(src) if end < 0 else end + len(closing)
            text = src[pos:end]
        if kind in ("ident", "path_sep", "punct", "string"):
            out.append(Tok(kind, text, line))
        line += text.count("\n")
        pos += len(text)
    return out


# --- modules ----------------------------------------------------------------------------------

ITEM_KEYWORDS = {"struct", "enum", "fn", "trait", "type", "const", "static", "union"}
VISIBILITY_SCOPES = {"crate", "super", "self", "in"}


@dataclass
class Use:
    path: list[str]  # absolute segments as written (may start with crate/super/self)
    alias: str | None  # the name bound; None for a glob
    line: int


@dataclass
class Module:
    path: tuple[str, ...]
    file: Path
    children: dict[str, tuple[str, ...]] = field(default_factory=dict)
    defs: set[str] = field(default_factory=set)
    uses: dict[str, Use] = field(default_factory=dict)
    globs: list[Use] = field(default_factory=list)
    # Paths written in the code: (segments, line).
    refs: list[tuple[list[str], int]] = field(default_factory=list)


class Crate:
    def __init__(self, root: Path):
        self.root = root
        self.modules: dict[tuple[str, ...], Module] = {}
        self.macros: dict[str, Path] = {}  # #[macro_export] macros live at the crate root
        self.errors: list[str] = []
        self._load(root, ())

    # Parsing a file: module declarations, item definitions, uses and paths.
    def _load(self, file: Path, modpath: tuple[str, ...]) -> None:
        try:
            toks = tokenize(file.read_text(encoding="utf-8"))
        except OSError as err:
            self.errors.append(f"{file}: cannot read: {err}")
            return
        self.modules[modpath] = Module(modpath, file)
        self._scan(toks, file, modpath)

    def _child_file(self, file: Path, name: str, attr_path: str | None) -> Path | None:
        is_dir_owner = file.name in ("mod.rs", "lib.rs", "main.rs") or file == self.root
        base = file.parent if is_dir_owner else file.parent / file.stem
        if attr_path:
            return (file.parent / attr_path) if not is_dir_owner else (base / attr_path)
        for candidate in (base / f"{name}.rs", base / name / "mod.rs"):
            if candidate.is_file():
                return candidate
        return None

    def _scan(self, toks: list[Tok], file: Path, modpath: tuple[str, ...]) -> None:
        stack: list[tuple[tuple[str, ...], int]] = [(modpath, 0)]  # (module, brace depth)
        depth = 0
        i = 0
        attr_path: str | None = None
        macro_export = False
        n = len(toks)

        def current() -> Module:
            return self.modules[stack[-1][0]]

        while i < n:
            t = toks[i]
            if t.kind == "punct" and t.text == "#":
                # An attribute: note #[path = ...] and #[macro_export]; skip its body.
                j = i + 1
                if j < n and toks[j].text == "!":
                    j += 1
                if j < n and toks[j].text == "[":
                    end = _matching(toks, j, "[", "]")
                    words = [x.text for x in toks[j + 1 : end]]
                    if words[:1] == ["macro_export"]:
                        macro_export = True
                    if words[:2] == ["path", "="] and len(words) > 2 and words[2].startswith('"'):
                        attr_path = words[2].strip('"')
                    i = end + 1
                    continue
            if t.kind == "punct" and t.text == "{":
                depth += 1
            elif t.kind == "punct" and t.text == "}":
                depth -= 1
                if len(stack) > 1 and depth < stack[-1][1]:
                    stack.pop()
            elif t.kind == "ident" and t.text == "mod" and i + 2 < n and toks[i + 1].kind == "ident":
                name = toks[i + 1].text
                child = stack[-1][0] + (name,)
                current().children[name] = child
                current().defs.add(name)
                if toks[i + 2].text == ";":
                    if len(stack) == 1:
                        path = self._child_file(file, name, attr_path)
                        if path is None:
                            self.errors.append(f"{file}:{t.line}: no file for `mod {name};`")
                        else:
                            self._load(path, child)
                    i += 3
                    attr_path = None
                    continue
                if toks[i + 2].text == "{":
                    self.modules[child] = Module(child, file)
                    depth += 1
                    stack.append((child, depth))
                    i += 3
                    continue
            elif t.kind == "ident" and t.text == "use" and (i == 0 or toks[i - 1].text != "::"):
                end = i + 1
                while end < n and toks[end].text != ";":
                    end += 1
                tree = toks[i + 1 : end]
                for use in _use_tree(tree, [], t.line):
                    m = current()
                    if use.alias is None:
                        m.globs.append(use)
                    elif use.alias != "_":
                        m.uses[use.alias] = use
                i = end + 1
                continue
            elif t.kind == "ident" and t.text == "macro_rules" and i + 2 < n and toks[i + 1].text == "!":
                name = toks[i + 2].text
                current().defs.add(name)
                if macro_export:
                    self.macros[name] = file
                macro_export = False
            elif t.kind == "ident" and t.text in ITEM_KEYWORDS and i + 1 < n and toks[i + 1].kind == "ident":
                if i == 0 or toks[i - 1].text not in ("::",):
                    current().defs.add(toks[i + 1].text)
                macro_export = False
            elif t.kind == "ident" and i + 1 < n and toks[i + 1].kind == "path_sep":
                # A path written in the code: `a::b::c` (generic args `::<` end it).
                if i > 0 and toks[i - 1].kind == "path_sep":
                    i += 1
                    continue
                segs = [t.text]
                j = i + 1
                while j + 1 < n and toks[j].kind == "path_sep" and toks[j + 1].kind == "ident":
                    segs.append(toks[j + 1].text)
                    j += 2
                if len(segs) > 1 and not (segs[0] in VISIBILITY_SCOPES and _in_visibility(toks, i)):
                    current().refs.append((segs, t.line))
                i = j
                continue
            i += 1

    # Resolving a path to the file that defines what it names.
    def resolve(self, at: tuple[str, ...], segs: list[str], seen: set | None = None) -> Path | None:
        seen = set() if seen is None else seen
        key = (at, tuple(segs))
        if key in seen or not segs:
            return None
        seen.add(key)
        segs = [s[2:] if s.startswith("r#") else s for s in segs]
        head, rest = segs[0], segs[1:]
        if head == "crate":
            if rest and rest[0] in self.macros and rest[0] not in self.modules[()].children:
                return self.macros[rest[0]]
            return self._walk((), rest, seen)
        if head == "self":
            return self._walk(at, rest, seen)
        if head == "super":
            up = at
            while segs and segs[0] == "super":
                up, segs = up[:-1], segs[1:]
            return self._walk(up, segs, seen)
        if head in ("Self", "std", "core", "alloc"):
            return None
        module = self.modules.get(at)
        if module is None:
            return None
        if head in module.children:
            return self._walk(module.children[head], rest, seen)
        if head in module.uses:
            use = module.uses[head]
            return self.resolve(at, use.path + rest, seen)
        return None

    def _walk(self, at: tuple[str, ...], segs: list[str], seen: set) -> Path | None:
        module = self.modules.get(at)
        if module is None:
            return None
        if not segs:
            return module.file
        head, rest = segs[0], segs[1:]
        if head in module.children and module.children[head] in self.modules:
            return self._walk(module.children[head], rest, seen)
        if head in module.defs:
            return module.file
        if head in module.uses:
            found = self.resolve(at, module.uses[head].path + rest, seen)
            if found is not None:
                return found
        for glob in module.globs:
            found = self.resolve(at, glob.path + [head] + rest, seen)
            if found is not None:
                return found
        return module.file

    def edges(self) -> dict[Path, dict[Path, int]]:
        """file -> {imported file: first line that imports it}."""
        graph: dict[Path, dict[Path, int]] = {}
        for module in self.modules.values():
            out = graph.setdefault(module.file, {})
            wanted: list[tuple[list[str], int]] = []
            for use in list(module.uses.values()) + module.globs:
                wanted.append((use.path, use.line))
            wanted.extend(module.refs)
            for segs, line in wanted:
                if module.globs and segs in [g.path for g in module.globs]:
                    target = self._walk_glob_target(module.path, segs)
                else:
                    target = self.resolve(module.path, segs)
                if target is not None and target != module.file:
                    if target not in out or line < out[target]:
                        out[target] = line
        return graph

    def _walk_glob_target(self, at: tuple[str, ...], segs: list[str]) -> Path | None:
        """A glob imports a module's items: an edge to that module's own file."""
        head = segs[0]
        if head == "crate":
            target = ()
            rest = segs[1:]
        elif head == "super":
            target, rest = at, segs
            while rest and rest[0] == "super":
                target, rest = target[:-1], rest[1:]
        elif head == "self":
            target, rest = at, segs[1:]
        else:
            module = self.modules.get(at)
            if module is None or head not in module.children:
                return self.resolve(at, segs)
            target, rest = module.children[head], segs[1:]
        for seg in rest:
            module = self.modules.get(target)
            if module is None or seg not in module.children:
                return self.resolve(at, segs)
            target = module.children[seg]
        module = self.modules.get(target)
        return module.file if module else None


def _matching(toks: list[Tok], start: int, open_: str, close: str) -> int:
    depth = 0
    for k in range(start, len(toks)):
        if toks[k].text == open_:
            depth += 1
        elif toks[k].text == close:
            depth -= 1
            if depth == 0:
                return k
    return len(toks) - 1


def _in_visibility(toks: list[Tok], i: int) -> bool:
    """`pub(in crate::a)`: a visibility, not an import."""
    k = i - 1
    while k >= 0 and toks[k].text not in ("(", ";", "{", "}"):
        k -= 1
    return k >= 1 and toks[k].text == "(" and toks[k - 1].text == "pub"


def _use_tree(toks: list[Tok], prefix: list[str], line: int) -> list[Use]:
    """The leaves of a `use` tree: each full path with the name it binds."""
    # Drop a leading `::`.
    if toks and toks[0].kind == "path_sep":
        toks = toks[1:]
    out: list[Use] = []
    segs = list(prefix)
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "ident" and t.text != "as":
            segs.append(t.text)
            i += 1
        elif t.kind == "path_sep":
            i += 1
        elif t.text == "*":
            out.append(Use(segs, None, t.line))
            return out
        elif t.text == "{":
            end = _matching(toks, i, "{", "}")
            inner = toks[i + 1 : end]
            # Split on top-level commas.
            part: list[Tok] = []
            depth = 0
            for x in inner + [Tok("punct", ",", t.line)]:
                if x.text == "{":
                    depth += 1
                elif x.text == "}":
                    depth -= 1
                if x.text == "," and depth == 0:
                    if part:
                        out.extend(_use_tree(part, segs, part[0].line))
                    part = []
                else:
                    part.append(x)
            return out
        elif t.kind == "ident" and t.text == "as":
            alias = toks[i + 1].text if i + 1 < len(toks) else None
            if segs and segs[-1] == "self":
                segs = segs[:-1]
            out.append(Use(segs, alias, t.line))
            return out
        else:
            i += 1
    if segs:
        if segs[-1] == "self":
            segs = segs[:-1]
        if segs:
            out.append(Use(segs, segs[-1], toks[0].line if toks else line))
    return out


# --- cycles -----------------------------------------------------------------------------------


def strongly_connected(graph: dict[Path, dict[Path, int]]) -> list[list[Path]]:
    """Tarjan's algorithm, iterative; components of more than one file."""
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    on_stack: set[Path] = set()
    stack: list[Path] = []
    out: list[list[Path]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, {}))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, {})))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def shortest_cycle(graph: dict[Path, dict[Path, int]], component: list[Path]) -> list[Path]:
    members = set(component)
    best: list[Path] | None = None
    for start in component:
        # BFS back to start inside the component.
        prev: dict[Path, Path] = {}
        frontier = [start]
        found = False
        while frontier and not found:
            nxt = []
            for node in frontier:
                for child in sorted(graph.get(node, {})):
                    if child not in members:
                        continue
                    if child == start:
                        path = [node]
                        while path[-1] != start:
                            path.append(prev[path[-1]])
                        path.reverse()
                        if best is None or len(path) < len(best):
                            best = path
                        found = True
                        break
                    if child not in prev:
                        prev[child] = node
                        nxt.append(child)
                if found:
                    break
            frontier = nxt
    return best or component


# --- layers -----------------------------------------------------------------------------------

LAYER_HEADING = re.compile(r"^//!\s*#*\s*Layers\b")
LAYER_ITEM = re.compile(r"^//!\s*(\d+)\.\s*\*\*([\w -]+)\*\*\s*\(([^)]*)\)")


def declared_layers(owner: Path) -> list[tuple[int, str, list[str]]] | None:
    lines = owner.read_text(encoding="utf-8").splitlines()
    layers: list[tuple[int, str, list[str]]] = []
    inside = False
    for line in lines:
        if not line.startswith("//!"):
            if inside:
                break
            continue
        if LAYER_HEADING.match(line):
            inside = True
            continue
        if inside:
            m = LAYER_ITEM.match(line)
            if m:
                parts = re.findall(r"`([^`]+)`", m.group(3))
                layers.append((int(m.group(1)), m.group(2).strip(), parts))
            elif re.match(r"^//!\s*#", line):
                break
    return layers or None


def check_layers(graph: dict[Path, dict[Path, int]], files: set[Path], owner: Path) -> list[str]:
    layers = declared_layers(owner)
    if layers is None:
        return []
    base = owner.parent
    errors: list[str] = []
    numbers = [n for n, _, _ in layers]
    if numbers != list(range(1, len(layers) + 1)):
        errors.append(f"{rel(owner)}: layers must be numbered 1.. from the bottom, found {numbers}")
    layer_of: dict[Path, tuple[int, str]] = {}
    for number, name, parts in layers:
        for part in parts:
            target = base / part.rstrip("/")
            matched = [
                f for f in files if f == target or (part.endswith("/") and target in f.parents)
            ]
            if not matched:
                errors.append(f"{rel(owner)}: layer {number} ({name}) names `{part}`, which holds no module file")
            for f in matched:
                if f in layer_of:
                    errors.append(f"{rel(f)} is in two layers: {layer_of[f][1]} and {name}")
                layer_of[f] = (number, name)
    for f in sorted(files):
        if base in f.parents and f != owner and f not in layer_of:
            errors.append(
                f"{rel(f)} is in no layer of {rel(owner)}: add it to the list under `Layers`"
            )
    for f, (number, name) in sorted(layer_of.items()):
        for target, line in sorted(graph.get(f, {}).items()):
            if target == owner:
                errors.append(
                    f"{rel(f)}:{line} imports {rel(owner)}, the directory's top: import the item "
                    f"from the file that defines it"
                )
                continue
            theirs = layer_of.get(target)
            if theirs is not None and theirs[0] > number:
                errors.append(
                    f"{rel(f)}:{line} (layer {number}, {name}) imports {rel(target)} "
                    f"(layer {theirs[0]}, {theirs[1]}): a lower layer must not import a higher one"
                )
    return errors


# --- main -------------------------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[2]


def rel(path: Path) -> str:
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        return str(path)


def workspace_roots() -> list[Path]:
    meta = subprocess.run(
        ["cargo", "metadata", "--no-deps", "--format-version", "1", "--offline"],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    )
    roots: list[Path] = []
    for package in json.loads(meta.stdout)["packages"]:
        for target in package["targets"]:
            if set(target["kind"]) & {"lib", "bin", "cdylib", "rlib", "proc-macro"}:
                roots.append(Path(target["src_path"]))
    return sorted(set(roots))


def cycle_errors(graph: dict[Path, dict[Path, int]]) -> list[str]:
    """One error per cycle of `graph`, as a chain of `file:line imports file` (any language)."""
    errors = []
    for component in strongly_connected(graph):
        cycle = shortest_cycle(graph, component)
        chain = []
        for k, node in enumerate(cycle):
            nxt = cycle[(k + 1) % len(cycle)]
            chain.append(f"    {rel(node)}:{graph[node][nxt]} imports {rel(nxt)}")
        others = "" if len(component) == len(cycle) else (
            f" ({len(component)} files circle: " + ", ".join(rel(f) for f in component) + ")"
        )
        errors.append("import cycle" + others + ":\n" + "\n".join(chain))
    return errors


def check(root: Path) -> list[str]:
    crate = Crate(root)
    errors = list(crate.errors)
    graph = crate.edges()
    errors.extend(cycle_errors(graph))
    files = {m.file for m in crate.modules.values()}
    for owner in sorted(files):
        if owner.name in ("mod.rs", "lib.rs", "main.rs"):
            errors.extend(check_layers(graph, files, owner))
    return errors


def problem(file: Path, line: int, what: str) -> str:
    return f"{rel(file)}{f':{line}' if line else ''}: {what}"


def check_python(package: Path) -> list[str]:
    graph, problems = python_graph(package)
    return [problem(*p) for p in problems] + cycle_errors(graph)


def check_js(root: Path) -> list[str]:
    graph, problems = js_graph(root)
    return [problem(*p) for p in problems] + cycle_errors(graph)


PYTHON_SDK = REPO / "sdk" / "python" / "warden_sdk"
JS_SDK = REPO / "sdk" / "js"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", action="append", type=Path, help="a crate root file (lib.rs/main.rs)")
    parser.add_argument("--python", action="append", type=Path, help="a Python package directory")
    parser.add_argument("--js", action="append", type=Path, help="a JavaScript tree (node_modules left out)")
    args = parser.parse_args()
    everything = not (args.root or args.python or args.js)
    roots = workspace_roots() if everything else [r.resolve() for r in args.root or []]
    packages = [PYTHON_SDK] if everything else [p.resolve() for p in args.python or []]
    trees = [JS_SDK] if everything else [t.resolve() for t in args.js or []]
    units = [(r, check) for r in roots] + [(p, check_python) for p in packages] + [(t, check_js) for t in trees]
    failed = 0
    for unit, run in units:
        errors = run(unit)
        if errors:
            failed += 1
            print(f"{rel(unit)}:", file=sys.stderr)
            for error in errors:
                print("  " + error, file=sys.stderr)
    if failed:
        print(f"module graph: {failed} of {len(units)} crates and trees fail; see above", file=sys.stderr)
        return 1
    print(
        f"module graph: {len(roots)} crate roots, {len(packages)} Python packages, {len(trees)} JavaScript "
        "trees; no import cycle, layers kept"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
