"""Large blocks handed back to the system when they are freed (glibc's `mallopt`).

A run that reads large answers (sixteen 13 MB attachment reads in one batch) allocates and frees
blocks of megabytes. glibc serves a block above its mmap threshold with a mapping of its own and
unmaps it on free, but the threshold is dynamic: after such a block is freed it rises to that
block's size (up to 32 MB), and from then on blocks of that size come from the heap and the
threads' arenas, whose freed pages stay resident. Measured on `mesq serve` (x86_64): the first
run of 16 large reads left the server 43 MB larger for good, and `malloc_trim(0)` afterwards
returned 2 MB of it. A fixed threshold (`M_MMAP_THRESHOLD`, which also stops the adjustment)
keeps every block of `LARGE_BLOCK_BYTES` or more in a mapping of its own: after the same run the
server was back within 1 MB. Smaller blocks are untouched, so ordinary requests pay nothing.

Elsewhere (musl, macOS) there is no such call, and this does nothing. Standard library only: the
sandbox worker (worker.py, run by path) calls it too.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

#: glibc's malloc.h: `#define M_MMAP_THRESHOLD -3`.
M_MMAP_THRESHOLD = -3
#: Blocks from this size up get a mapping of their own (glibc's starting threshold is 128 KiB).
LARGE_BLOCK_BYTES = 1024 * 1024


@functools.cache
def map_large_blocks() -> bool:
    """Fix this process's mmap threshold at LARGE_BLOCK_BYTES (once); False where it cannot."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, LARGE_BLOCK_BYTES))
