"""File formats: the decision-tree file, the checkpoint file, and safe file input and output."""
