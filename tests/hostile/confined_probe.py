"""Run by path by tests/hostile/test_code_mode_hostile.py: starts as the sandbox worker does (V8
loaded, then `confinement.confine()`), then tries what a script that escaped V8 would try, and
prints what each attempt got as one JSON line. Argument: a file under the data directory."""

from __future__ import annotations

import errno
import json
import os
import socket
import sys
from pathlib import Path

CODE = Path(__file__).resolve().parents[2] / "layers" / "core" / "mesq" / "mcp" / "code"
sys.path.insert(0, str(CODE))

from confinement import confine  # noqa: E402 - beside worker.py, imported as the worker does
from py_mini_racer import MiniRacer  # noqa: E402


def attempt(action) -> str:  # type: ignore[no-untyped-def]
    try:
        action()
    except OSError as error:
        return errno.errorcode.get(error.errno or 0, str(error.errno))
    return "allowed"


def main() -> None:
    target = Path(sys.argv[1])
    MiniRacer().close()
    confined = confine()
    racer = MiniRacer()  # an isolate still works: V8 needs nothing that was taken away
    outcome = {
        "confined": confined,
        "v8": racer.eval("6 * 7"),
        "read_data_file": attempt(lambda: os.open(target, os.O_RDONLY)),
        "write_data_dir": attempt(lambda: os.open(target.parent / "planted", os.O_WRONLY | os.O_CREAT, 0o600)),
        "read_world_readable": attempt(lambda: os.open("/etc/hostname", os.O_RDONLY)),
        "list_data_dir": attempt(lambda: os.listdir(target.parent)),
        "unlink": attempt(lambda: os.unlink(target)),
        "socket": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
        "exec": attempt(lambda: os.execv("/bin/sh", ["/bin/sh", "-c", "true"])),
        "fork": attempt(lambda: os._exit(0) if os.fork() == 0 else None),
        "signal_parent": attempt(lambda: os.kill(os.getppid(), 0)),
        "setuid_root": attempt(lambda: os.setuid(0)),
    }
    racer.close()
    sys.stdout.write(json.dumps(outcome) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
