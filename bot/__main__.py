"""`python -m bot`: the same as the `pokerfloor` command."""

import sys

from bot.cli import main

sys.exit(main())
