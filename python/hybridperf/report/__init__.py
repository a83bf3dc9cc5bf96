"""What users see: the HTML report with its figures, and the terminal tables."""
