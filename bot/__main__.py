"""`python -m bot`: the same as the `pokerfloor` command."""

import sys

from bot.surfaces.cli import main

sys.exit(main())
