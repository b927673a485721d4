"""``python -m pullback_calc.cli`` is the ``pullback-calc`` command."""
import sys

from .main import main

sys.exit(main())
