"""``python -m minimx.compat [--force] script.py [args...]``: see ``minimx.compat``."""
import sys

from . import main

sys.exit(main())
