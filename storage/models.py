"""SQLModel tables. Each topic's tables live in their own module and are imported here."""
