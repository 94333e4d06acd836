"""Every symbolic link the repository tracks points inside it.

A link to a path outside (a virtual environment, a folder on one machine) is
dangling in every other clone, and copies that machine's layout into the product.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SYMLINK_MODE = "120000"


def tracked_links(root: Path) -> dict[str, str]:
    """The links git tracks in ``root``: path in the repository -> target as stored."""
    git = shutil.which("git")
    if git is None or not (root / ".git").exists():
        pytest.skip("not a git checkout: no tracked files to read")
    listed = subprocess.run([git, "ls-files", "--stage", "-z"], cwd=root, check=True,
                            capture_output=True, timeout=60).stdout.decode()
    links: dict[str, str] = {}
    for entry in filter(None, listed.split("\0")):
        info, _, path = entry.partition("\t")
        mode, blob, _stage = info.split()
        if mode == SYMLINK_MODE:
            target = subprocess.run([git, "cat-file", "blob", blob], cwd=root, check=True,
                                    capture_output=True, timeout=60).stdout.decode()
            links[path] = target
    return links


def leaves(root: Path, link: str, target: str) -> bool:
    """Whether ``target``, read from the folder of ``link``, is outside ``root``."""
    if os.path.isabs(target):
        return True
    resolved = os.path.normpath(os.path.join(root, os.path.dirname(link), target))
    return not Path(resolved).is_relative_to(root)


def test_no_tracked_link_leaves_the_repository() -> None:
    outside = {link: target for link, target in tracked_links(ROOT).items()
               if leaves(ROOT, link, target)}
    assert not outside, f"tracked links pointing outside the repository: {outside}"


def test_a_link_is_judged_by_where_it_lands() -> None:
    root = Path("/repo")
    assert leaves(root, ".venv-main", "/elsewhere/.venv")
    assert leaves(root, "docs/up", "../../outside")
    assert not leaves(root, "docs/readme", "../README.md")
    assert not leaves(root, "a/b/c", "../d/e")
