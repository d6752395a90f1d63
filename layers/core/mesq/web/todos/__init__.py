"""The todo web app: the board at `/todos`, a task's page, the inbox, quick add, the todo trash."""
