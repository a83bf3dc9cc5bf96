"""Pure analysis of measured runs: statistics, verdicts, MPC's taxonomy, Chow & Hysom's efficiencies, the
thesis's per-study tables. Imports only the profile contract, `shapes` and itself: no launcher, store or CLI."""
