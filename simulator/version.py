"""zoosim's version: the one number a run folder, a report and `zoosim --version` record. A module
of the lowest layer, so storage and reports read it without importing the package's entry point."""

__version__ = "0.1.0"
