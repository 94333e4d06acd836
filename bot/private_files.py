"""Files only their owner may read: the database, its backups, the token.

Campaign data and the bot token are nobody else's business on a shared host,
so the files the bot creates are made owner-only from the first byte (not
chmodded after being written, which would leave a window), and start-up warns
about existing ones that other users can read.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700
_OTHERS_READ = stat.S_IRGRP | stat.S_IROTH


def create_private_file(path: Path) -> None:
    """Create ``path`` empty with mode 0600 unless it exists (an existing file is left as it is)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE))


def make_private_dir(path: Path) -> None:
    """Create the folder ``path`` (and its parents) with mode 0700 unless it exists."""
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)


def mode_text(path: Path) -> str:
    """The permission bits as ``chmod`` takes them, e.g. ``0644``."""
    return f"{stat.S_IMODE(path.stat().st_mode):04o}"


def readable_by_others(path: Path) -> bool:
    """Whether users other than the owner (group or anyone) may read ``path``."""
    try:
        return bool(path.stat().st_mode & _OTHERS_READ)
    except FileNotFoundError:
        return False
