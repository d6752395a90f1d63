"""Storage ports (ports.py) and their adapters: SQLite / DynamoDB items, local files / S3 blobs."""
