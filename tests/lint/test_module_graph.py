"""The module-graph check fails on a planted cycle or a broken layer, and passes the tree as it is."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
CHECK = HERE / "module_graph.py"
REPO = HERE.parents[1]


def crate(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path / "lib.rs"


def run(*roots: Path) -> subprocess.CompletedProcess:
    args = [sys.executable, str(CHECK)]
    for root in roots:
        args += ["--root", str(root)]
    return subprocess.run(args, capture_output=True, text=True, cwd=REPO)


def test_a_planted_cycle_fails_with_its_chain(tmp_path):
    root = crate(
        tmp_path,
        {
            "lib.rs": "mod a;\nmod b;\nmod c;\n",
            "a.rs": "use crate::b::Bee;\npub struct Ay;\n",
            "b.rs": "pub struct Bee(pub crate::c::Sea);\n",
            "c.rs": "pub struct Sea;\nfn f() { let _ = super::a::Ay; }\n",
        },
    )
    result = run(root)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "import cycle" in result.stderr
    for chain in ("a.rs:1 imports", "b.rs:1 imports", "c.rs:2 imports"):
        assert chain in result.stderr, result.stderr


def test_a_chain_without_a_cycle_passes(tmp_path):
    root = crate(
        tmp_path,
        {
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": "use crate::b::Bee;\n",
            "b.rs": "pub struct Bee;\n",
        },
    )
    result = run(root)
    assert result.returncode == 0, result.stderr


def test_re_exports_are_followed_so_a_table_of_contents_ties_nothing(tmp_path):
    # `top/mod.rs` re-exports both children; `one` names `two`'s item through the parent.
    root = crate(
        tmp_path,
        {
            "lib.rs": "mod top;\n",
            "top/mod.rs": "mod one;\nmod two;\npub use one::One;\npub use two::Two;\n",
            "top/one.rs": "pub struct One(pub super::Two);\n",
            "top/two.rs": "pub struct Two;\n",
        },
    )
    assert run(root).returncode == 0
    # The same through an item defined in mod.rs itself is a cycle.
    (tmp_path / "top/mod.rs").write_text("mod one;\nmod two;\npub use one::One;\npub struct Two;\n")
    result = run(root)
    assert result.returncode == 1
    assert "top/one.rs:1 imports" in result.stderr


def test_comments_and_strings_are_not_imports(tmp_path):
    root = crate(
        tmp_path,
        {
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": "use crate::b::Bee;\n",
            "b.rs": '// crate::a::x\n/* crate::a::y */\npub struct Bee;\nconst S: &str = "crate::a::z";\nconst R: &str = r#"crate::a::w"#;\n',
        },
    )
    assert run(root).returncode == 0


def test_a_visibility_path_is_not_an_import(tmp_path):
    root = crate(
        tmp_path,
        {
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": "use crate::b::Bee;\n",
            "b.rs": "pub struct Bee;\n#[cfg(test)]\nmod tests {\n    pub(in crate::a) fn helper() {}\n}\n",
        },
    )
    assert run(root).returncode == 0


LAYERED = {
    "lib.rs": "mod web;\n",
    "web/mod.rs": """\
        //! A layered directory.
        //!
        //! ## Layers
        //!
        //! 1. **data** (`data.rs`): plain types.
        //! 2. **effects** (`live/`): talking to the outside.
        //! 3. **wit** (`wit.rs`): the interface.
        mod data;
        mod live;
        mod wit;
        """,
    "web/data.rs": "pub struct Tab;\n",
    "web/live/mod.rs": "mod tab;\n",
    "web/live/tab.rs": "use super::super::data::Tab;\n",
    "web/wit.rs": "use super::live;\nuse super::data::Tab;\n",
}


def test_layers_kept_pass(tmp_path):
    assert run(crate(tmp_path, LAYERED)).returncode == 0


def test_a_lower_layer_importing_a_higher_one_fails(tmp_path):
    files = dict(LAYERED)
    files["web/data.rs"] = "pub struct Tab;\nfn f() { let _ = crate::web::wit::X; }\n"
    files["web/wit.rs"] = "pub struct X;\n"
    result = run(crate(tmp_path, files))
    assert result.returncode == 1
    assert "web/data.rs:2 (layer 1, data) imports" in result.stderr
    assert "(layer 3, wit): a lower layer must not import a higher one" in result.stderr


def test_a_file_in_no_layer_fails(tmp_path):
    files = dict(LAYERED)
    files["web/mod.rs"] += "mod stray;\n"
    files["web/stray.rs"] = "pub struct S;\n"
    result = run(crate(tmp_path, files))
    assert result.returncode == 1
    assert "web/stray.rs is in no layer" in result.stderr


@pytest.mark.parametrize("root", ["host/src/lib.rs", "plugins/browser/src/lib.rs"])
def test_the_tree_as_it_is_passes(root):
    result = run(REPO / root)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("root", ["host/src", "plugins/browser/src"])
def test_a_cycle_planted_in_the_real_tree_fails(root, tmp_path):
    """Copy the crate, make a file that another imports import it back: the check names it."""
    sys.path.insert(0, str(HERE))
    import module_graph

    copy = tmp_path / "src"
    shutil.copytree(REPO / root, copy)
    crate_ = module_graph.Crate(copy / "lib.rs")
    graph = crate_.edges()
    # An import A -> B where A defines a struct or fn B can name.
    for a, targets in sorted(graph.items()):
        module = next((m for m in crate_.modules.values() if m.file == a and m.path), None)
        if not targets or module is None or not module.defs - set(module.children):
            continue
        item = sorted(module.defs - set(module.children))[0]
        b = sorted(targets)[0]
        with open(b, "a") as f:
            f.write(f"\n#[allow(dead_code)]\ntype Planted = crate::{'::'.join(module.path)}::{item};\n")
        break
    else:
        pytest.fail("no import to reverse")
    result = run(copy / "lib.rs")
    assert result.returncode == 1
    assert "import cycle" in result.stderr
    planted = re.escape(str(b)) + r":\d+ imports " + re.escape(str(a))
    assert re.search(planted, result.stderr), result.stderr


# --- the Python and JavaScript SDKs -----------------------------------------------------------


def tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path


def run_scripts(*, python: Path | None = None, js: Path | None = None) -> subprocess.CompletedProcess:
    args = [sys.executable, str(CHECK)]
    if python is not None:
        args += ["--python", str(python)]
    if js is not None:
        args += ["--js", str(js)]
    return subprocess.run(args, capture_output=True, text=True, cwd=REPO)


def test_a_python_cycle_through_a_deferred_import_fails_naming_the_files(tmp_path):
    # `b` imports `a` only inside a function: it runs later, but the two still need each other.
    pkg = tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": '"""from .c import nothing: a docstring, no import."""\nfrom .b import Bee\n',
            "pkg/b.py": "class Bee:\n    def ay(self):\n        from . import a\n        return a\n",
        },
    ) / "pkg"
    result = run_scripts(python=pkg)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "import cycle" in result.stderr
    assert f"{pkg / 'a.py'}:2 imports {pkg / 'b.py'}" in result.stderr, result.stderr
    assert f"{pkg / 'b.py'}:3 imports {pkg / 'a.py'}" in result.stderr, result.stderr
    # Without the deferred import it passes.
    (pkg / "b.py").write_text("class Bee:\n    pass\n")
    assert run_scripts(python=pkg).returncode == 0


def test_a_python_cycle_under_type_checking_and_by_absolute_name_fails(tmp_path):
    pkg = tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "",
            "pkg/sub/one.py": "import pkg.two\n",
            "pkg/two.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .sub.one import One\n",
        },
    ) / "pkg"
    result = run_scripts(python=pkg)
    assert result.returncode == 1
    assert f"{pkg / 'sub/one.py'}:1 imports {pkg / 'two.py'}" in result.stderr, result.stderr
    assert f"{pkg / 'two.py'}:3 imports {pkg / 'sub/one.py'}" in result.stderr, result.stderr


def test_a_python_init_that_re_exports_ties_nothing(tmp_path):
    # `__init__` imports both modules; `one` takes the module `two` through the package.
    pkg = tree(
        tmp_path,
        {
            "pkg/__init__.py": "from .one import One\nfrom .two import Two\n",
            "pkg/one.py": "from . import two\nOne = two.Two\n",
            "pkg/two.py": "Two = 2\n",
        },
    ) / "pkg"
    assert run_scripts(python=pkg).returncode == 0
    # A name `__init__` defines is an import of `__init__`, which imports `one`: a cycle.
    (pkg / "one.py").write_text("from . import Two\nOne = Two\n")
    result = run_scripts(python=pkg)
    assert result.returncode == 1
    assert f"{pkg / 'one.py'}:1 imports {pkg / '__init__.py'}" in result.stderr, result.stderr


@pytest.mark.parametrize(
    "back",
    [
        "export { a } from './a.js';\n",
        "export * from './a';\n",
        "const a = await import('./a.js');\n",
        "const a = require('../src/a.js');\n",
    ],
)
def test_a_js_cycle_fails_naming_the_files(tmp_path, back):
    root = tree(
        tmp_path,
        {
            "src/a.js": "import { b } from './b.mjs';\nexport const a = 1;\n",
            "src/b.mjs": "// import { a } from './a.js';\n/* require('./a.js') */\nexport const b = 2;\n" + back,
            "node_modules/dep/index.js": "import '../../src/a.js';\n",
        },
    )
    result = run_scripts(js=root)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{root / 'src/a.js'}:1 imports {root / 'src/b.mjs'}" in result.stderr, result.stderr
    assert f"{root / 'src/b.mjs'}:4 imports {root / 'src/a.js'}" in result.stderr, result.stderr
    assert "node_modules" not in result.stderr


def test_js_comments_and_strings_are_not_imports(tmp_path):
    root = tree(
        tmp_path,
        {
            "a.js": "import { b } from './b.js';\n",
            "b.js": (
                "// import './a.js'\n/* export * from './a.js' */\n"
                "const url = 'https://example.com/x'; // import('./a.js')\n"
                "const re = /\\/\\*/; const s = \"/*\"; import('./c.js');\n"
                "const note = \"ok\"; /* */\n"
            ),
            "c.js": "export const fixture = `import { a } from './a.js';`;\nconst s = \"require('./a.js')\";\n",
        },
    )
    result = run_scripts(js=root)
    assert result.returncode == 0, result.stderr


def test_a_js_import_of_a_missing_file_fails(tmp_path):
    root = tree(tmp_path, {"a.js": "import { b } from './gone.js';\n"})
    result = run_scripts(js=root)
    assert result.returncode == 1
    assert f"{root / 'a.js'}:1: `./gone.js` names no file" in result.stderr


def test_the_sdks_as_they_are_pass():
    result = run_scripts(python=REPO / "sdk/python/warden_sdk", js=REPO / "sdk/js")
    assert result.returncode == 0, result.stderr
    assert "1 Python packages, 1 JavaScript trees" in result.stdout
    # Run with no options, the check covers these two.
    sys.path.insert(0, str(HERE))
    import module_graph

    assert module_graph.PYTHON_SDK == REPO / "sdk/python/warden_sdk"
    assert module_graph.JS_SDK == REPO / "sdk/js"


def test_the_python_sdk_with_its_old_circle_fails(tmp_path):
    """`_export` once named `Plugin` under TYPE_CHECKING while `_plugin` imports `_export`."""
    copy = tmp_path / "warden_sdk"
    shutil.copytree(REPO / "sdk/python/warden_sdk", copy, ignore=shutil.ignore_patterns("__pycache__"))
    export = copy / "_export.py"
    export.write_text(
        export.read_text() + "\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ._plugin import Plugin\n"
    )
    result = run_scripts(python=copy)
    assert result.returncode == 1
    assert re.search(re.escape(str(copy / "_plugin.py")) + r":\d+ imports " + re.escape(str(export)), result.stderr)
    assert re.search(re.escape(str(export)) + r":\d+ imports " + re.escape(str(copy / "_plugin.py")), result.stderr)
