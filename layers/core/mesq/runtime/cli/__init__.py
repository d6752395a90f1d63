"""`mesq`: run the local server, manage users and personal access tokens, import and export data.

One module per command group (`serve`, `user`, `token`, `reading`, `export`, `import`, `search`,
`todos`); `main.py` builds the parser from them and runs the chosen one. pyproject's console
script names `mesq.runtime.cli:main`; `python -m mesq.runtime.cli` runs `__main__.py`."""

from .main import main

__all__ = ["main"]
