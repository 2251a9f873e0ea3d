"""`python -m scoring`: the same command as `mjlens score` (e.g. --rules mcr --jsonl)."""

import sys

from .cli import escape_unencodable_output, main

escape_unencodable_output()
sys.exit(main())
