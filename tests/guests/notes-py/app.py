"""Notes kept as files under /data with Python's own file API, for any wasip2 host that
preopens a directory there: a componentize-py component without Warden's SDK.

    componentize-py -d wit -w notes componentize app -o notes_py.wasm
"""

import os
import re

import wit_world
from componentize_py_types import Err, Ok
from wit_world.imports import outgoing_handler, types

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

    def fetch_status(self, url: str) -> str:
        # Standard wasi:http through componentize-py's own bindings, no SDK: a refused request
        # fails in the component's words, and the host adds the grant to its tool error.
        scheme, sep, rest = url.partition("://")
        if not sep or scheme not in ("http", "https"):
            raise Err(f"not an http(s) URL: {url}")
        authority, slash, path = rest.partition("/")
        request = types.OutgoingRequest(types.Fields())
        request.set_method(types.Method_Get())
        request.set_scheme(types.Scheme_Https() if scheme == "https" else types.Scheme_Http())
        request.set_authority(authority)
        request.set_path_with_query(slash + path if slash else "/")
        try:
            future = outgoing_handler.handle(request, None)
        except Err as e:
            raise Err(f"request refused: {e.value}")
        future.subscribe().block()
        answer = future.get()
        if answer is None or not isinstance(answer, Ok):
            raise Err("the response never came, or was taken twice")
        if not isinstance(answer.value, Ok):
            raise Err(f"request refused: {answer.value.value}")
        response = answer.value.value
        body = response.consume()
        stream = body.stream()
        data = b""
        try:
            while len(data) < 4096:
                data += stream.blocking_read(4096)
        except Err:
            pass
        return f"{response.status()} {data[:200].decode(errors='replace')}"

    def owner(self) -> str:
        try:
            return os.environ["NOTES_OWNER"]
        except KeyError:
            raise Err("NOTES_OWNER is not set")
