"""The reading shelf at `/reading`: books, a book's notes, note search."""
