"""Helpers shared by several test files, imported as a package (``from support.training
import TINY``) rather than from another test file."""
