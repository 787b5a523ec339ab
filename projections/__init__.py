"""Pure folds of encounter event streams: tracks, replay, diffs and the audit."""
