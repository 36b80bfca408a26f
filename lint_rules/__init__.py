"""attnlint: a linter and autofixer for the hot paths of PyTorch attention backends."""

__version__ = "0.1.0"
