"""Carries Warden's WIT inside the package (warden_sdk/wit), so an installed SDK builds plugins
without a checkout. In a checkout the files come from the top-level wit/; in an sdist, from
the copy already made."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithWit(build_py):
    def run(self) -> None:
        super().run()
        here = Path(__file__).resolve().parent
        source = here.parent.parent / "wit"
        if not (source / "plugin.wit").is_file():
            source = here / "warden_sdk" / "wit"
        if not (source / "plugin.wit").is_file():
            raise SystemExit(f"Warden's WIT not found at {source}: build from a Warden checkout")
        shutil.copytree(source, Path(self.build_lib) / "warden_sdk" / "wit", dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildWithWit})
