"""18Dixie (Mark Derrick): the title's data and the arithmetic its rules add
to the 18xx family (docs/rules-18dixie.md)."""
