"""`python -m mesq.runtime.cli ...`: the `mesq` command, as the console script runs it."""

import sys

from .main import main

sys.exit(main())
