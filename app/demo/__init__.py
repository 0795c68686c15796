"""A demo home: two agents with a bilingual history, conflicts, an archive and a year of health."""
