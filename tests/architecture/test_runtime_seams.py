"""Two things only the runtime knows, each read in one place: the machine's process table behind the
`Processes` port (`kernel/ports/processes.py`, provided by `adapters/processes.py`: domain code
never reads /proc nor signals a process to learn whether an import's writer still runs), and the
Lambda invocation's clock (`kernel/concurrency.invocation_clock`: its context's
`get_remaining_time_in_millis`, read for the HTTP functions, the stream consumer and the MCP
endpoint alike)."""

from __future__ import annotations

import ast
from pathlib import Path

from mesq.wiring.services import build_services
from tests.architecture.test_import_direction import FLOORS, PACKAGE
from tests.settings import inprocess_settings

#: The floors of domain code: everything below the adapters.
DOMAIN = frozenset(package for floor in FLOORS[: FLOORS.index(("adapters",))] for package in floor)
#: What asks the operating system about processes.
OS_CALLS = frozenset({"kill", "getpid", "readlink", "getppid"})
FUNCTIONS = PACKAGE.parents[2] / "functions"


def process_table_reads(source: str) -> list[str]:
    """Where `source` reads /proc or calls os.kill, os.getpid, os.readlink (line: what)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os":
            if node.attr in OS_CALLS:
                found.append(f"{node.lineno}: os.{node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("/proc"):
            found.append(f"{node.lineno}: {node.value!r}")
    return sorted(found)


def test_domain_code_never_asks_the_operating_system_about_processes() -> None:
    """imports/reports.py read /proc (a process's start, the boot id, the pid namespace) and sent
    signal 0 to learn whether an import's writer still ran: it asks the `Processes` port now."""
    modules = [path for path in PACKAGE.rglob("*.py") if path.relative_to(PACKAGE).parts[0] in DOMAIN]
    assert len(modules) > 100, "the check read nothing"
    found = {
        path.relative_to(PACKAGE).as_posix(): reads
        for path in modules
        if (reads := process_table_reads(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_check_finds_a_proc_read_and_a_signal() -> None:
    rogue = 'import os\n\ndef alive(pid):\n    open(f"/proc/{pid}/stat")\n    os.kill(pid, 0)\n'
    assert process_table_reads(rogue) == ["4: '/proc/'", "5: os.kill"]


def test_the_composition_root_puts_the_process_table_in_place(tmp_path: Path) -> None:
    from mesq.adapters.processes import LocalProcesses
    from mesq.kernel.ports import processes

    processes.use(processes._Unknown())
    build_services(inprocess_settings(data_dir=tmp_path))
    assert isinstance(processes.current(), LocalProcesses)
    here = processes.current().this_process()
    assert processes.current().still_runs(here) is True


def test_the_lambda_clock_is_read_in_one_place() -> None:
    """`get_remaining_time_in_millis` was read in three: the HTTP handler, the stream handler and
    the MCP endpoint, each with its own fallback."""
    readers = sorted(
        path.relative_to(PACKAGE.parents[2]).as_posix()
        for root in (PACKAGE, FUNCTIONS)
        for path in root.rglob("*.py")
        if "get_remaining_time_in_millis" in path.read_text(encoding="utf-8")
    )
    assert readers == ["layers/core/mesq/kernel/concurrency.py"]
