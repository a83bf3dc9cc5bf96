"""Studies of the user's own program (`kernel: app`): its `app:` block, the figures and regions read from its
output, and the profile hybridperf writes for each of its runs (docs/apps.md)."""
