"""The import sources' readers: the files other apps export, opened for mesq/imports."""
