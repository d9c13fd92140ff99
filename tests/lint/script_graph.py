"""The import graphs of the Python and JavaScript SDKs, for module_graph.py's cycle check.

Each returns `{file: {imported file: first line that imports it}}`, the shape of the Rust
crates' graph, so one cycle report serves all three languages.

Python (`python_graph(package)`): every `import` and `from ... import` found by `ast`, at
any depth, so an import deferred into a function or kept under `if TYPE_CHECKING:` counts:
either still ties the two files together, and a deferred import is the usual way a circle is
hidden rather than broken. Relative imports and absolute ones naming the package are
followed; others (the standard library, generated bindings) are outside the graph.
`from pkg import sub`, with `sub` a module, imports `sub` alone, not `pkg/__init__.py`, so a
package's `__init__` that re-exports its modules is not a hub that ties them together (as
with a Rust `mod.rs`); a name `__init__` defines is an import of `__init__`.

JavaScript (`js_graph(root)`): the relative specifiers of `import ... from`, `import '...'`,
`export ... from`, `import(...)` and `require(...)`, found by regular expressions over the
source with its comments blanked out and its quoted text skipped, resolved to files as Node
and bundlers do (the path, then with an extension, then `index.*`). `node_modules` is not
part of the tree.
"""

from __future__ import annotations

import ast
import bisect
import re
from pathlib import Path

Graph = dict[Path, dict[Path, int]]
# A file that cannot be read, or an import that names nothing: (file, line or 0, what).
Problem = tuple[Path, int, str]


def _add(graph: Graph, source: Path, target: Path | None, line: int) -> None:
    if target is None or target == source or target not in graph:
        return
    out = graph[source]
    if target not in out or line < out[target]:
        out[target] = line


# --- Python -----------------------------------------------------------------------------------


def python_files(package: Path) -> list[Path]:
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


def python_graph(package: Path) -> tuple[Graph, list[Problem]]:
    """The graph of the package at `package` (the directory holding its `__init__.py`), and
    the files that do not parse or import from above the package."""
    package = package.resolve()
    top = package.parent
    graph: Graph = {f: {} for f in python_files(package)}
    errors: list[Problem] = []

    def module_file(parts: list[str]) -> Path | None:
        """The file of dotted module `parts` (starting with the package's name), if it is ours."""
        if not parts or parts[0] != package.name:
            return None
        base = top.joinpath(*parts)
        for candidate in (base.with_suffix(".py") if len(parts) > 1 else None, base / "__init__.py"):
            if candidate is not None and candidate in graph:
                return candidate
        return None

    for file in graph:
        try:
            tree = ast.parse(file.read_text(encoding="utf-8"), str(file))
        except (OSError, SyntaxError, ValueError) as err:
            errors.append((file, getattr(err, "lineno", None) or 0, f"cannot parse: {err}"))
            continue
        parts = list(file.relative_to(top).with_suffix("").parts)
        # The package a relative import starts from: the file's own for an `__init__.py`.
        here = parts[:-1]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    names = alias.name.split(".")
                    # `import a.b.c` binds `a` but runs every level; the deepest is the one named.
                    for depth in range(len(names), 0, -1):
                        target = module_file(names[:depth])
                        if target is not None:
                            _add(graph, file, target, node.lineno)
                            break
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    if node.level > len(here):
                        errors.append((file, node.lineno, "relative import beyond the package"))
                        continue
                    base = here[: len(here) - (node.level - 1)]
                else:
                    base = []
                module = base + (node.module.split(".") if node.module else [])
                owner = module_file(module)
                for alias in node.names:
                    sub = module_file(module + [alias.name]) if alias.name != "*" else None
                    _add(graph, file, sub or owner, node.lineno)
    return graph, errors


# --- JavaScript -------------------------------------------------------------------------------

JS_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")



def _spec(n: int) -> str:
    """A quoted relative specifier; `n` numbers the groups, one set per alternative."""
    return rf"""(?P<q{n}>['"`])(?P<spec{n}>\.{{1,2}}/[^'"`\n]*)(?P=q{n})"""


# Not after `.` or a word character: `x.import(` and `reimport(` are not imports.
_KEYWORD = r"(?<![\w$.])"
JS_IMPORTS = re.compile(
    # import x, { y as z } from './a.js'   import * as a from './a.js'   import './a.js'
    _KEYWORD + r"import\s+(?:[\w$*{},\s]+?\s+from\s*)?" + _spec(1)
    # export * from './a.js'   export * as a from './a.js'   export { y } from './a.js'
    + "|" + _KEYWORD + r"export\s+(?:type\s+)?(?:\*(?:\s+as\s+[\w$]+)?|\{[^}]*\})\s*from\s*" + _spec(2)
    # import('./a.js')   require('./a.js')
    + "|" + _KEYWORD + r"(?:import|require)\s*\(\s*" + _spec(3) + r"\s*\)"
)

# After one of these (or at the start), a `/` begins a regular expression, not a division.
_REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {""}


def scan_js(src: str) -> tuple[str, list[tuple[int, int]]]:
    """`src` with its comments replaced by spaces (newlines kept, so lines still count), and
    the spans of its literals: strings, template literals and regular expressions, stepped
    over so that `'//'` in a URL is not a comment, and so that source code quoted in a string
    (a test's fixture) is not an import."""
    out: list[str] = []
    literals: list[tuple[int, int]] = []
    i, n = 0, len(src)
    last = ""  # the last significant character outside a comment
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            end = src.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
            continue
        if src.startswith("/*", i):
            end = src.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", src[i:end]))
            i = end
            continue
        if c in "'\"`" or (c == "/" and last in _REGEX_BEFORE):
            j = i + 1
            in_class = False
            while j < n:
                d = src[j]
                if d == "\\":
                    j += 2
                    continue
                if c == "/" and d == "[":
                    in_class = True
                elif c == "/" and d == "]":
                    in_class = False
                elif d == c and not in_class:
                    break
                elif d == "\n" and c != "`":
                    break  # an unclosed string or a division after all: stop at the line's end
                j += 1
            out.append(src[i : j + 1])
            literals.append((i, j + 1))
            i = j + 1
            last = c
            continue
        out.append(c)
        if not c.isspace():
            last = c
        i += 1
    return "".join(out), literals


def _inside(spans: list[tuple[int, int]], pos: int) -> bool:
    k = bisect.bisect_right(spans, (pos, float("inf"))) - 1
    return k >= 0 and spans[k][0] <= pos < spans[k][1]


def js_files(root: Path) -> list[Path]:
    found = []
    for p in root.rglob("*"):
        rel = p.relative_to(root).parts
        if "node_modules" in rel or any(part.startswith(".") for part in rel):
            continue
        if p.is_file() and p.name.endswith(JS_SUFFIXES):
            found.append(p)
    return sorted(found)


def resolve_js(source: Path, spec: str, files: set[Path]) -> Path | None:
    base = (source.parent / spec).resolve()
    candidates = [base]
    candidates += [base.with_name(base.name + suffix) for suffix in JS_SUFFIXES]
    # TypeScript writes `./x.js` for the `./x.ts` it compiles to it.
    if base.suffix in (".js", ".mjs", ".cjs"):
        ts = {".js": ".ts", ".mjs": ".mts", ".cjs": ".cts"}[base.suffix]
        candidates += [base.with_suffix(ts), base.with_suffix(".tsx")]
    candidates += [base / f"index{suffix}" for suffix in JS_SUFFIXES]
    return next((c for c in candidates if c in files), None)


def js_graph(root: Path) -> tuple[Graph, list[Problem]]:
    """The graph of the JavaScript (and TypeScript) files under `root`, and the files that
    cannot be read or name a relative file that is not there."""
    root = root.resolve()
    graph: Graph = {f: {} for f in js_files(root)}
    files = set(graph)
    errors: list[Problem] = []
    for file in graph:
        try:
            text, literals = scan_js(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as err:
            errors.append((file, 0, f"cannot read: {err}"))
            continue
        for m in JS_IMPORTS.finditer(text):
            if _inside(literals, m.start()):
                continue
            spec = m.group("spec1") or m.group("spec2") or m.group("spec3")
            if "${" in spec:
                continue  # a template computed at run time names no one file
            line = text.count("\n", 0, m.start()) + 1
            target = resolve_js(file, spec, files)
            if target is None:
                if not (file.parent / spec).resolve().is_relative_to(root):
                    continue  # outside the tree (a sibling package): not ours to check
                errors.append((file, line, f"`{spec}` names no file"))
                continue
            _add(graph, file, target, line)
    return graph, errors
