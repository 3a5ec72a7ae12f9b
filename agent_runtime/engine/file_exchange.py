"""Swap two files in one step: renameat2(2) with RENAME_EXCHANGE.

A new state file takes the place of the old one, and the old one (whatever it is at that instant,
even a file an editor is still writing) lands where the new one was, in the trash. Python has no
binding for it (os.rename cannot exchange) and no maintained package wraps it, so it is called
through ctypes. Where the system or the file system cannot (macOS, Windows, some network file
systems), `exchange_files` says so and the caller keeps the old version another way.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
from pathlib import Path
from typing import Any

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_NO_EXCHANGE = {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV, errno.EPERM}


@functools.cache
def _renameat2() -> Any:
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    function.restype = ctypes.c_int
    return function


def exchange_files(a: Path, b: Path) -> bool:
    """Swap the files at `a` and `b` atomically; False where that cannot be done (nothing changed).
    FileNotFoundError when one of them is missing."""
    function = _renameat2()
    if function is None:
        return False
    if function(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in _NO_EXCHANGE:
        return False
    raise OSError(code, os.strerror(code), str(b))
