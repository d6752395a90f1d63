"""What starts a process: the apps, the local server, the CLI and the Lambda entry."""
