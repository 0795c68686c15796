"""The memory's lifecycle: forgetting and the archive, health snapshots, the distiller."""
