"""Helpers for the ``attnlint verify`` tests: a tiny project and synthetic fixes."""
