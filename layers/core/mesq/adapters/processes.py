"""The `Processes` port (`mesq/kernel/ports/processes.py`) on the machine's own process table:
a process is named by its host, its pid numbering (the kernel's boot and the pid namespace, from
Linux's /proc), its pid and its start time (/proc/<pid>/stat, so a pid the system gave to
another process since is not taken for it). Where there is no /proc (macOS) the numbering and
the start are "" and the pid alone says: its pids are the host's."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any


def _host() -> str:
    import platform  # on first use: ~1.5 ms a cold start that keeps no report need not pay

    return platform.node()


def _process_start(pid: int) -> str:
    """When process `pid` started (Linux: its start time in clock ticks since boot), so a pid the
    system gave to another process since is not taken for the import's; "" where unknown."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rpartition(")")[2].split()[19]
    except (OSError, IndexError):
        return ""


def _pid_space() -> str:
    """Which numbering this process's pids belong to: the kernel's boot (a Lambda execution
    environment, a virtual machine: each its own) and the pid namespace within it (a container).
    Pids from another numbering say nothing here: a Lambda container's Python often has the same
    pid as the next one's, and two containers sharing a data directory each count from 1. "" where
    unknown (no /proc: macOS, whose pids are the host's)."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as boot:
            return boot.read().strip() + "/" + os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


class LocalProcesses:
    """This machine's processes, read when asked (nothing kept: a pid namespace is per process)."""

    def this_process(self) -> dict[str, Any]:
        return {"host": _host(), "pids": _pid_space(), "pid": os.getpid(), "start": _process_start(os.getpid())}

    def still_runs(self, process: Mapping[str, Any]) -> bool | None:
        if process.get("host") != _host() or process.get("pids") != _pid_space():
            # Another machine, container or Lambda environment (its pid may be one of ours by
            # chance, even with the same start): this process cannot tell. ("" on both sides: a
            # system without /proc, macOS, has no pid namespaces: its pids are the host's.)
            return None
        pid = process.get("pid")
        if not isinstance(pid, int) or isinstance(pid, bool):
            return False
        if pid == os.getpid():  # this process: the writer unless it started after it
            return str(process.get("start") or "") == _process_start(pid)
        try:
            os.kill(pid, 0)  # no signal: only whether the process exists
        except ProcessLookupError:
            return False
        except PermissionError:  # another user's process: its start says whether it is the writer
            pass
        return str(process.get("start") or "") == _process_start(pid)


__all__ = ["LocalProcesses"]
