"""Development tools: a real Home Assistant process for scripts/develop and end-to-end tests."""
