"""zoosim: Monte Carlo rules-balance analysis for tabletop games."""

import sys

from simulator.version import __version__  # noqa: F401  the package's version, `simulator.__version__`


def console() -> None:
    """The `zoosim` console script: `simulator.cli.console`, imported here so that a Ctrl-C while
    the command line's libraries load ends as any other interrupted command does (one line,
    status 130) instead of with a traceback of the import."""
    try:
        from simulator.cli import console as zoosim
    except KeyboardInterrupt:
        sys.stderr.write("\nzoosim: interrupted\n")
        raise SystemExit(130) from None
    zoosim()
