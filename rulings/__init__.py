"""pokerfloor's pure domain engine: the only surface ``bot`` and ``storage`` import.

Each topic adds its re-exports below (one import block per module) and its names to
``__all__``, which stays sorted.
"""

from rulings.errors import RulingsError

__all__ = [
    "RulingsError",
]
