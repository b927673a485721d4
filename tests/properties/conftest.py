"""Property suite set-up.

The engine runs deep recursions on a big-stack thread and raises the
recursion limit the first time it does (pullback_calc/deep.py).  Raise it
once here, before any Hypothesis test runs, so Hypothesis does not warn that
the limit "changed during test execution" in whichever test comes first.
"""
import pullback_calc as pc

pc.reduce("1")
