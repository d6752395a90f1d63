"""Which process this is, and whether a process another one named still runs: what the operating
system knows of processes, behind a port, so domain code never asks it. An import's running
report names the process writing it (`this_process`); a reader asks whether that process still
runs (`still_runs`) before it takes the run for interrupted (`imports/reports.py`).

One per process, like the stop `kernel/concurrency.py` holds: a process is one process however
many `Services` it builds. The composition root puts the provider in place (`use`;
`mesq/adapters/processes.py`: Linux's /proc, elsewhere the pid alone); until then nothing is
known of any process (`still_runs` answers None: judged by the record's own progress)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class Processes(Protocol):
    def this_process(self) -> dict[str, Any]:
        """What names this process to a later reader (plain JSON values), in this process or
        another one on the same or another machine."""
        ...

    def still_runs(self, process: Mapping[str, Any]) -> bool | None:
        """Whether the process `process` names (as `this_process` answered there) still runs:
        False when it has surely ended, True when it surely runs, None when this process cannot
        tell (another machine, container or Lambda environment: its pids are not ours)."""
        ...


class _Unknown:
    """No provider in place: every process is one this process cannot tell about."""

    def this_process(self) -> dict[str, Any]:
        return {}

    def still_runs(self, process: Mapping[str, Any]) -> bool | None:
        return None


_CURRENT: list[Processes] = [_Unknown()]


def use(processes: Processes) -> None:
    """The provider this process asks from now on (the composition root's choice)."""
    _CURRENT[0] = processes


def current() -> Processes:
    return _CURRENT[0]
