"""The real CalDAV client the tests drive, python-caldav 3.x, in a virtualenv of its own.

python-caldav 3 speaks HTTP through niquests, whose urllib3-future replaces the `urllib3` package
in the environment it is installed into: in MeSQ's own venv it would swap the HTTP stack under
boto3, moto and httpx for the whole suite. So it lives apart, installed on first use under
`<repo>/.cache/dav-clients/` (pinned below; a file lock lets parallel test workers share one
install), and the tests run their client script with its interpreter.

From a shell::

    python infra/dav_clients.py --install-only     # what `make test` runs first
"""

from __future__ import annotations

import argparse
import fcntl
import subprocess
import sys
import venv
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
CACHE_DIR = REPO_ROOT / ".cache" / "dav-clients"
#: The client under test, pinned: a new release is a deliberate change of this line.
REQUIREMENTS = ("caldav==3.6.0",)
INSTALL_TIMEOUT_S = 900.0


def _stamp() -> str:
    return "\n".join(REQUIREMENTS) + "\n"


def client_python(cache_dir: Path = CACHE_DIR) -> Path:
    """The interpreter of the client venv, installed (once) if missing."""
    env_dir = cache_dir / "venv"
    python = env_dir / "bin" / "python"
    stamp = env_dir / ".requirements"
    cache_dir.mkdir(parents=True, exist_ok=True)
    with open(cache_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if python.exists() and stamp.exists() and stamp.read_text() == _stamp():
            return python
        venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *REQUIREMENTS],
            check=True,
            timeout=INSTALL_TIMEOUT_S,
        )
        stamp.write_text(_stamp())
    return python


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--install-only", action="store_true", help="install the client venv and exit")
    parser.parse_args(argv)
    print(client_python())
    return 0


if __name__ == "__main__":
    sys.exit(main())
