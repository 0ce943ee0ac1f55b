"""18xx titles: each a folder of data files plus a module of its special rules."""
