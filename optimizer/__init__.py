"""moo: exhaustive decision-tree optimizer for code-breaking games."""

__version__ = "0.1.0"
