"""``python -m pullback_calc`` is the ``pullback-calc`` command."""
import sys

from .cli import main

sys.exit(main())
