"""The scheduled and queued jobs: the sweeper, reading sync, attachment clean-up."""
