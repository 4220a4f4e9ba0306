"""zoosim: Monte Carlo rules-balance analysis for tabletop games.

The Python API (simulator/api.py): `simulator.open_run(PATH)` reads a run folder,
`simulator.run_experiment(PATH_OR_DICT, games=..., seed=..., out=...)` runs an experiment as
`zoosim run` does; both return a `Run`, whose `games()`, `cells`, `seats` and `verdicts` are
pandas DataFrames. Importing the package loads neither pandas, pyarrow nor numba.
"""

import sys

from simulator.api import Run, open_run, run_experiment
from simulator.version import __version__  # noqa: F401  the package's version, `simulator.__version__`

__all__ = ["Run", "open_run", "run_experiment", "console"]


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
