"""Study specs (YAML) and their runs: parsing and validation, expansion into runs, the local and Slurm backends."""
