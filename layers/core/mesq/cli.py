"""The `mesq` command's old path, kept only for console scripts installed before the package root
was layered: their `bin/mesq` runs `from mesq.cli import main` until `pip install -e .` rewrites it
(pyproject now names `mesq.runtime.cli:main`). The command lives in runtime/cli.py."""

from .runtime.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
