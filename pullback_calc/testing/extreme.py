"""Extreme inputs: very long operator chains and very deep nestings of every
construct, as source text (for the robustness tests, tests/test_robust.py).

Each generator is linear in ``n`` and builds the text with ``str`` joins and
repetition, never by recursion.  ``EXTREMES`` maps a name to ``(make, kind)``:
``kind`` says what the text is -- "closed" (a closed term of type ℝ, so it
reduces to a numeral), "value" (already a value) or "open" (well typed with
free variables, or ill typed: only the front end and a clean answer count).
"""
from __future__ import annotations

from typing import Callable


def chain(op: str, n: int, leaf: str = "1") -> str:
    """``1 op 1 op … op 1`` with n operands."""
    return f" {op} ".join([leaf] * n)


def nest(prefix: str, core: str, suffix: str, n: int) -> str:
    """``prefix`` n times, ``core``, ``suffix`` n times."""
    return prefix * n + core + suffix * n


EXTREMES: dict[str, tuple[Callable[[int], str], str]] = {
    "add-chain": (lambda n: chain("+", n), "closed"),
    "sub-chain": (lambda n: chain("-", n), "closed"),
    "mul-chain": (lambda n: chain("*", n), "closed"),
    "div-chain": (lambda n: chain("/", n), "closed"),
    "pow-chain": (lambda n: chain("^", n), "closed"),   # right-nested
    "sum-chain": (lambda n: chain("⊕", n), "closed"),   # one flat formal sum
    "app-chain": (lambda n: "(λx. x) " * n + "1", "closed"),  # left-nested application
    "parens": (lambda n: nest("(", "1", ")", n), "closed"),
    "negation": (lambda n: nest("-", "x", "", n), "open"),
    "negation-closed": (lambda n: nest("−(", "1", ")", n), "closed"),
    "lambda": (lambda n: nest("λx. ", "x", "", n), "value"),
    "let": (lambda n: nest("let x = 1 in ", "x", "", n), "closed"),
    "let-bound": (lambda n: nest("let x = ", "1", " in x", n), "closed"),
    "app-nest": (lambda n: nest("(λx. x) (", "1", ")", n), "closed"),
    "tuple": (lambda n: nest("⟨", "1", ", 1⟩", n), "value"),
    "proj": (lambda n: nest("π1 ", nest("⟨", "1", ", 1⟩", n), "", n), "closed"),
    "sum-nest": (lambda n: nest("(1 ⊕ ", "1", ")", n), "closed"),
    "sin-nest": (lambda n: nest("sin(", "1", ")", n), "closed"),
    "pullback": (lambda n: nest("Ω(", "λx. x", ") (λz. λw. w)", n), "open"),
    "jacobian": (lambda n: nest("J(λx. ", "x", ")·1", n), "open"),
    "dual": (lambda n: nest("(λv. ", "v", ")⋆ (λw. w)", n), "open"),
    "type-arrow": (lambda n: "λf : " + "ℝ → " * n + "ℝ. f", "value"),
    "type-prod-nest": (lambda n: "λp : " + nest("(ℝ × ", "ℝ", ")", n) + ". p", "value"),
    # each binder its own name: a pattern binding a name twice is an error
    "pattern-nest": (lambda n: "λ" + "⟨" * n + "x" + "".join(f", y{i}⟩" for i in range(n))
                     + ". x", "value"),
    # a variable bound outside the nest and used at its bottom: substitution
    # (rule 1, eager or delayed) walks the whole depth
    "neg-subst": (lambda n: _under_y(nest("-", "y", "", n)), "closed"),
    "add-subst": (lambda n: _under_y(chain("+", n, "y")), "closed"),
    "lambda-subst": (lambda n: _under_y(nest("λa. ", "y", "", n)), "value"),
    "let-subst": (lambda n: _under_y(nest("let x = ", "y", " in x", n)), "closed"),
    "tuple-subst": (lambda n: _under_y(nest("⟨", "y", ", 1⟩", n)), "value"),
    "proj-subst": (lambda n: _under_y(nest("π1 ", nest("⟨", "y", ", 1⟩", n), "", n)), "closed"),
    "sum-subst": (lambda n: _under_y(nest("(y ⊕ ", "y", ")", n)), "closed"),
    "jacobian-subst": (lambda n: _under_y(nest("J(λx. ", "x", ")·y", n)), "value"),
    # well-typed nests of pullbacks and dual maps in the 1-form / functional
    "pullback-form": (lambda n: nest("Ω(λx. sin(x)) (", "λz. λw. w", ")", n) + " 1", "value"),
    "dual-functional": (lambda n: nest("(λv. 1 × v)⋆(", "λw. w", ")", n) + " 1", "closed"),
}


def _under_y(body: str) -> str:
    return f"(λy. {body}) 1"


#: functions ℝ → ℝ whose derivative by reduction walks their depth (jacobian_row)
DEEP_FUNCTIONS: dict[str, Callable[[int], str]] = {
    "sin": lambda n: sin_chain(n),
    "neg": lambda n: "λx. " + nest("-", "x", "", n),
    "add": lambda n: "λx. " + chain("+", n, "x"),
    "let-bound": lambda n: "λx. " + nest("let x = ", "sin(x)", " in x", n),
    "app-nest": lambda n: "λx. " + nest("(λy. y) (", "x", ")", n),
    "tuple-proj": lambda n: "λx. " + nest("π1 ", nest("⟨", "x", ", 1⟩", n), "", n),
}


def sin_chain(n: int) -> str:
    """λx. sin(sin(… sin(x) …)), n deep: a function ℝ → ℝ for jacobian/check/graph."""
    return "λx. " + nest("sin(", "x", ")", n)


def church_sum(n: int) -> str:
    """λ⟨x1…xn⟩. sum [x1, …, xn], sum = λl. l (λx. λacc. x + acc) 0 folding a
    Church list built from the inputs: its gradient runs the list's tangent."""
    xs = ", ".join(f"x{i}" for i in range(1, n + 1))
    lst = "n"
    for i in range(n, 0, -1):
        lst = f"c x{i} ({lst})"
    return f"λ⟨{xs}⟩. let sum = λl. l (λx. λacc. x + acc) 0 in sum (λc. λn. {lst})"


def damage(text: str, rnd) -> str:
    """``text`` as a typing slip leaves it: cut short, or a few characters deleted,
    doubled or replaced (``rnd``: a ``random.Random``, or anything with its
    ``random``, ``randrange``, ``randint`` and ``choice``)."""
    if not text or rnd.random() < 0.3:
        return text[:rnd.randrange(len(text) + 1)]
    chars = list(text)
    for _ in range(rnd.randint(1, 4)):
        i = rnd.randrange(len(chars))
        op = rnd.randrange(3)
        if op == 0:
            del chars[i]
        elif op == 1:
            chars.insert(i, chars[i])
        else:
            chars[i] = rnd.choice("()⟨⟩,.λ+-×*/^⊕Ωπ1 xy0e9#⋆J·𝟎\n\"'<\\")
        if not chars:
            break
    return "".join(chars)
