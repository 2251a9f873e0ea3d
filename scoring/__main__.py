"""`python -m scoring`: the same command as `mjlens score` (e.g. --rules mcr --jsonl)."""

import sys

from .cli import main

sys.exit(main())
