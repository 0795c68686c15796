"""The app's pages, one module each; `PAGES` lists them in sidebar order."""
