"""Moving a home's data in and out: JSON Lines export and import, agent histories, a file mirror."""
