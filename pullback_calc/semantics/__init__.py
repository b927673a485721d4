"""Semantics: the independent denotational evaluator (the oracle).

It shares only the syntax with the reduction engine, so the engines, the
cross-checks, ``--verify`` and the tests can all compare against it; it sits
just above ``syntax`` in the layers."""
