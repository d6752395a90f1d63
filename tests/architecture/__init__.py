"""Rules the whole code base keeps: the import direction, one composition root, package READMEs,
the served surface, the test lanes."""
