"""Notes kept as files under /data with Python's own file API, for any wasip2 host that
preopens a directory there: a componentize-py component without Warden's SDK.

    componentize-py -d wit -w notes componentize app -o notes_py.wasm
"""

import os
import re

import wit_world
from componentize_py_types import Err

DIR = "/data"
NAME = re.compile(r"[A-Za-z0-9_-]+")


def _path(name: str) -> str:
    if not NAME.fullmatch(name):
        raise Err(f"bad note name {name!r}: use letters, digits, - and _")
    return f"{DIR}/{name}.txt"


class WitWorld(wit_world.WitWorld):
    def save_note(self, name: str, text: str) -> str:
        path = _path(name)
        try:
            with open(path, "w", encoding="utf-8") as f:
                written = f.write(text)
        except OSError as e:
            raise Err(f"cannot write {path}: {e}")
        return f"saved {name} ({written} characters)"

    def read_note(self, name: str) -> str:
        path = _path(name)
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except OSError as e:
            raise Err(f"cannot read {path}: {e}")

    def greet(self, name: str) -> str:
        return f"Hello, {name}, from Python!"

    def owner(self) -> str:
        try:
            return os.environ["NOTES_OWNER"]
        except KeyError:
            raise Err("NOTES_OWNER is not set")
