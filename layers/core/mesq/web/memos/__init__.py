"""The memo web app: the timeline at `/`, its writes and uploads, the memo trash, activity."""
