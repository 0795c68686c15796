"""What the engine knows of English and Chinese text: normalising, full-text terms, token counts."""
