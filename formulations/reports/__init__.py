"""Reports on results: plots, system views, animations, report folders and classroom derivations."""
