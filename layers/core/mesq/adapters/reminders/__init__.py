"""reminders."""
