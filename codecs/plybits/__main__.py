"""``python -m plybits``: the ``plybits`` command, when the service package (``app``) is installed with it.

The library itself never imports the service; only running this module does.
"""

from __future__ import annotations

import sys


def main() -> int:
    """Run the ``plybits`` command, or say why it is not there."""
    try:
        from app.cli import main as cli_main
    except ImportError as err:
        print(f"python -m plybits: the plybits command needs the service package ({err})", file=sys.stderr)
        return 2
    return cli_main()


if __name__ == "__main__":
    sys.exit(main())
