"""Browser tests (headless chromium via Playwright): the widgets in JupyterLab, the built book."""
