"""python-caldav 3.x as a subprocess (its own venv, infra/dav_clients.py) answering one JSON
command per line (caldav_driver.py)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("caldav_driver.py")


def _infra() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mesq_infra_dav_clients", REPO_ROOT / "infra" / "dav_clients.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def client_python() -> Path:
    python: Path = _infra().client_python()
    return python


class CaldavClient:
    def __init__(self, url: str, username: str, password: str) -> None:
        self.process = subprocess.Popen(
            [str(client_python()), str(DRIVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.connected = self.ok("connect", url=url, username=username, password=password)

    def run(self, do: str, **arguments: Any) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"do": do, **arguments}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, f"the caldav driver ended during {do!r}"
        answer: dict[str, Any] = json.loads(line)
        return answer

    def ok(self, do: str, **arguments: Any) -> dict[str, Any]:
        answer = self.run(do, **arguments)
        assert answer["ok"], answer
        return answer

    def fails(self, do: str, **arguments: Any) -> dict[str, Any]:
        answer = self.run(do, **arguments)
        assert not answer["ok"], answer
        return answer

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
