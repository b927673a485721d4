"""Programs as users write them: Hypothesis strategies for whole programs.

``strategies.terms`` builds terms node by node from their types; the shapes
people actually write are rarer there than they are in practice.  This module
builds *programs*, as text, the way a researcher writes one:

* let-bound helpers of one to three arguments, curried or tupled, partially
  applied, capturing the inputs being differentiated, some returning an
  abstraction (``let mk = λa. let s = sin(a) in λt. s × t in …``), also one
  that takes a derivative of a function of what it captured
  (``λt. grad1 (λu. let a = sin(u × u) + s in …) t``);
* Church lists built from the inputs -- written out, by a let-bound ``cons``,
  or by a Church numeral iterating ``λl. cons e l`` -- and consumed by ``sum``,
  ``map``, ``foldr``, ``foldl`` in continuation-passing style, or a fold with a
  pair accumulator (``map-helper``, when asked for: the mapped function a
  let-bound helper over the inputs, ``let g = λe. sin(e × x1) in sum (map g l)``);
* pullbacks nested inside the differentiated body, at a point that depends on
  the outer variables, along 1-forms that depend on them too; ``Ω`` applied to
  a let-bound function; Jacobians applied inside the body;
* function-typed inputs: ``Ω(λg. …) ω (λt. …) (λt. …)``, a derivative along a
  function direction, also with a pullback nested inside it;
* helpers returning pairs, taken apart by projections or a pattern ``let ⟨u, v⟩``;
  higher-order helpers on ℝ → ℝ (composition, ``twice``, a Church numeral
  iterating a function); a let-bound derivative operator ``grad1 = λf. λz.
  Ω(f) (λa. λw. w) z 1`` applied to a function, and to its own result.

``programs(n)`` draws a ``UserProgram``: the text of ``λ⟨x1, …, xn⟩. …`` (a
closed term of type ℝⁿ → ℝ), a point, and the features it uses.  Every
program is well typed (simple types, no let-polymorphism: a let-bound ``cons``
serves one accumulator type per program) and total at every point (function
symbols stay in their domains: ``log(1 + a × a)``, ``a / (2 + b × b)``,
``exp(sin(a))``, …), so the reduction of its gradient, Hessian or value must
reach numerals.  ``features`` names the shapes used (``hypothesis.event``
reports them), so a property can ask for programs with given shapes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from hypothesis import strategies as st

from ..syntax.subst import fv, subst
from ..syntax.terms import (App, Lam, Proj, Tuple, Var, is_let, pattern_vars, remake,
                            subterm_kids, subterms)

__all__ = ["UserProgram", "programs", "FEATURES", "LIST_LIBRARY", "alpha_rename", "inline_helpers",
           "project_written_pairs",
           "eta_expand_helpers", "add_unused_helpers", "DerivativeChain", "derivative_chains",
           "ChurchBuild", "church_builds", "InputList", "input_lists", "TupleNest",
           "tuple_nests"]

#: every shape a program can use
FEATURES = ("helper", "curried", "tupled", "partial", "returns-λ", "three-args", "capture",
            "list-literal", "list-cons", "list-numeral", "sum", "map", "foldr", "foldl",
            "pair-fold", "nested-Ω", "Ω-let-bound", "J-applied", "function-input",
            "returns-pair", "combinator", "grad1", "grad1-nested", "let-reuse",
            "returns-grad1", "g-of-chain", "discarded", "Ω-outer", "Ω-constant",
            "map-helper", "stored-call", "pair-closure", "Ω-let-helper", "Ω-helper",
            "J-helper", "iterated-direction", "Ω-at-function", "vector-J", "shadowed-name",
            "Ω-named-point")

#: the Church-list library a program binds when it uses lists (each at one type)
LIST_LIBRARY = {
    "nil": "λf. λd. d",
    "cons": "λx. λl. λf. λd. f x (l f d)",
    "sum": "λl. l (λx. λacc. x + acc) 0",
    "map": "λg. λl. λf. λd. l (λx. λacc. f (g x) acc) d",
    "foldr": "λf. λz. λl. l f z",
    # foldl by foldr in continuation-passing style: the list at β = ℝ → ℝ
    "foldl": "λf. λz. λl. l (λx. λk. λacc. k (f acc x)) (λacc. acc) z",
    # not a list function: the derivative of a function ℝ → ℝ, as users define it
    "grad1": "λf. λz. Ω(f) (λa. λw. w) z 1",
}

# binder names: plain ones, and some the engine also generates (α-equivalence
# must not care: mul_1, dx, u_4, omega_2 are as good as any name)
_NAMES = ("a", "b", "c", "t", "s", "y", "v", "k", "p", "q", "r", "e")
_ENGINE_NAMES = ("mul_1", "dx", "u_4", "omega_2", "app_3", "dy", "z_5")


@dataclass(frozen=True)
class UserProgram:
    """A closed program ``λ⟨x1, …, xn⟩. body`` of type ℝⁿ → ℝ (or ℝⁿ → ℝᵐ, its
    body a tuple of m reals), as text."""
    text: str
    n: int
    point: tuple
    features: frozenset
    m: int = 1
    #: the same program with each constant-map pullback (``Ω-constant``) replaced by
    #: 0 × its 1-form's coefficient at the pulled-back point: what its derivative must
    #: compute (the coefficient's value), none of its tangent
    alt: Optional[str] = None

    @property
    def term(self):
        from ..syntax.parser import parse
        return parse(self.text)

    def __str__(self) -> str:
        return self.text


#: a name no program uses, for a binder named only once the text around it is known
_Z = "⟪z⟫"

#: the kinds of real expression drawn by a helper method of the builder: kind → method
_SHAPES = {"call": "call", "list": "fold", "nested": "nested", "fun-input": "function_input",
           "pair": "pair", "combinator": "combinator", "grad1": "grad1", "returned": "returned",
           "reuse": "reuse", "discarded": "discarded"}


class _Builder:
    """One program: the helpers bound so far and the names in scope."""

    def __init__(self, draw, n: int, depth: int, want: frozenset):
        self.draw, self.depth, self.want = draw, depth, want
        self.inputs = [f"x{i}" for i in range(1, n + 1)] if n > 1 else ["x"]
        self.lets: list[str] = []          # "let h = … in" lines, in order
        self.features: set[str] = set()
        self.helpers: dict[str, tuple] = {}  # name -> (kind, arity): kind curried/tupled
        self.counter = 0
        self.lists_at: Optional[str] = None  # the accumulator type of cons lists: "real"/"cps"
        self.library: set[str] = set()
        self.budget = 40                   # nodes of real expressions, at most
        self.alts: list[tuple[str, str]] = []  # (constant-map pullback, its yardstick)
        self.iterated: list[str] = []  # the iterated directions drawn (a property varies them)

    # ---- small draws ------------------------------------------------------------------
    def pick(self, seq):
        return self.draw(st.sampled_from(seq))

    def chance(self, one_in: int) -> bool:
        return self.draw(st.integers(0, one_in - 1)) == 0

    def fresh(self, stem: str) -> str:
        self.counter += 1
        if self.chance(6):  # an engine-style name now and then
            return f"{self.pick(_ENGINE_NAMES)}{self.counter}"
        return f"{stem}{self.counter}"

    def numeral(self) -> str:
        return self.pick(("1", "2", "0.5", "3", "-1", "0.25", "1.5"))

    # ---- real expressions ----------------------------------------------------------------
    def real(self, scope: list, depth: int, funs: tuple = ()) -> str:
        """A term of type ℝ over the real variables ``scope`` (inputs first) and
        the ℝ → ℝ variables ``funs`` (function-typed parameters)."""
        self.budget -= 1
        if depth <= 0 or self.budget <= 0:
            return self.leaf(scope)
        kinds = ["leaf", "arith", "arith", "unary", "safe", "call", "list", "nested",
                 "fun-input", "returned", "pair", "combinator", "grad1", "reuse", "discarded"]
        if funs:
            kinds += ["apply-fun", "apply-fun"]
        k = self.pick(kinds)
        d = depth - 1
        if k == "leaf":
            return self.leaf(scope)
        if k == "arith":
            op = self.pick(("+", "×", "−", "×"))
            return f"({self.real(scope, d, funs)} {op} {self.real(scope, d, funs)})"
        if k == "unary":
            f = self.pick(("sin", "cos", "tanh"))
            return f"{f}({self.real(scope, d, funs)})"
        if k == "safe":
            a = self.real(scope, d, funs)
            form = self.pick(("exp(sin({a}))", "log(1 + {a} × {a})", "sqrt(1 + {a} × {a})",
                              "({a}) ^ 2", "({a}) ^ 3", "({a}) / (2 + {b} × {b})"))
            return form.format(a=a, b=self.leaf(scope) if "{b}" in form else "")
        if k == "apply-fun":
            g = self.pick(funs)
            return f"{g} ({self.real(scope, d, funs)})"
        return getattr(self, _SHAPES[k])(scope, d, funs)

    def leaf(self, scope: list) -> str:
        if scope and not self.chance(4):
            # the inputs (and the innermost binders) more often than numerals
            return self.pick(scope)
        return self.numeral()

    def reuse(self, scope: list, depth: int, funs: tuple, longest: int = 5,
              first: Optional[str] = None, shortest: int = 2) -> str:
        """Local lets, each value read twice by the next (``let a = … in let b =
        sin(a × a) + x in …``), as users name an intermediate they use again.
        The stages are bounded (sin, tanh, or no larger than their input), so a
        long chain stays in the floats."""
        self.features.add("let-reuse")
        names = [self.fresh("a") for _ in range(self.draw(st.integers(shortest, longest)))]
        parts = [f"let {names[0]} = {first or self.real(scope, depth, funs)} in"]
        for prev, cur in zip(names, names[1:]):
            form = self.pick(("sin({a} × {a}) + {l}", "{a} × tanh({a})", "tanh({a} + {a} × {l})",
                              "cos({a}) × {a}"))
            parts.append(f"let {cur} = {form.format(a=prev, l=self.leaf(scope))} in")
        return "(" + " ".join(parts) + f" {names[-1]})"

    # ---- helpers -----------------------------------------------------------------------
    def helper(self, scope: list) -> str:
        """A let-bound helper ℝ^k → ℝ (curried or tupled), capturing the inputs."""
        self.features.add("helper")
        arity = self.pick((1, 2, 2, 3))
        params = [self.fresh(self.pick(_NAMES)) for _ in range(arity)]
        kind = "curried" if arity == 1 or not self.chance(3) else "tupled"
        captured = self.inputs if self.chance(2) else []
        if captured:
            self.features.add("capture")
        body = self.real(params + captured, 2)
        name = self.fresh("h")
        if kind == "tupled":
            self.features.add("tupled")
            lam = f"λ⟨{', '.join(params)}⟩. {body}"
        else:
            if arity > 1:
                self.features.add("curried")
            lam = "".join(f"λ{p}. " for p in params) + body
        if arity == 3:
            self.features.add("three-args")
        self.lets.append(f"let {name} = {lam} in")
        self.helpers[name] = (kind, arity)
        return name

    def call(self, scope: list, depth: int, funs: tuple) -> str:
        """A call of a let-bound helper: whole, or partially applied by a let."""
        name = self.pick(sorted(self.helpers)) if self.helpers and not self.chance(3) \
            else self.helper(scope)
        kind, arity = self.helpers[name]
        args = [self.real(scope, depth, funs) for _ in range(arity)]
        if kind == "tupled":
            return f"{name} ⟨{', '.join(args)}⟩"
        if arity > 1 and self.chance(2):  # partial application, bound by a let
            self.features.add("partial")
            part = self.fresh("part")
            rest = " ".join(f"({a})" for a in args[1:])
            return f"(let {part} = {name} ({args[0]}) in {part} {rest})"
        return f"{name} " + " ".join(f"({a})" for a in args)

    def discarded(self, scope: list, depth: int, funs: tuple) -> str:
        """A value computed and then ignored: a constant function (bound by a let,
        or written in place) applied to a pullback whose 1-form calls a helper over
        the inputs, or to a derivative inside the program.  Its cotangent is 𝟎, and
        reverse mode computed every tangent before it only for the dual map to
        discard it (a program that evaluates in 16 steps took 23,374 for its
        gradient)."""
        self.features.add("discarded")
        const = f"(λ{self.fresh('t')}. {self.numeral()})"
        if self.chance(2):
            k = self.fresh("k")
            self.lets.append(f"let {k} = {const} in")
            const = k
        if self.chance(3):
            return f"{const} ({self.nested(scope, depth, funs)})"
        y, m, w = self.fresh("y"), self.fresh("m"), self.fresh("w")
        form = f"(λ{m}. λ{w}. ({self.call(scope, depth, funs)}) × {w})"
        return f"{const} (Ω(λ{y}. {self.numeral()}) {form} ({self.leaf(scope)}) " \
               f"({self.leaf(scope)}))"

    def returned(self, scope: list, depth: int, funs: tuple) -> str:
        """A helper that returns an abstraction, applied twice."""
        self.features.add("returns-λ")
        a, s, t = self.fresh("a"), self.fresh("s"), self.fresh("t")
        if self.chance(3):
            inner = self.derivative_of_captured(s, t)
        else:
            inner = self.real([s, t] + (self.inputs if self.chance(2) else []), 1)
        mk = self.fresh("mk")
        self.lets.append(f"let {mk} = λ{a}. let {s} = sin({a}) in λ{t}. {inner} in")
        return f"({mk} ({self.real(scope, depth, funs)})) ({self.real(scope, depth, funs)})"

    def derivative_of_captured(self, s: str, t: str) -> str:
        """The body of a returned abstraction λt: a derivative at t (or a second
        one) of a function of the captured s, its intermediates read twice.  The
        outer gradient then differentiates the closure along s at an open t, and
        composes the inner derivative's stage maps there (their coefficients
        once graphs evaluated path by path: 4ᵏ steps for k stages)."""
        self.features.add("returns-grad1")
        if "grad1" not in self.library:
            self.use("grad1")
        u = self.fresh("u")
        head = self.pick(("sin({u} × {u}) + {s}", "{u} × {s}", "tanh({u} + {s} × {u})"))
        f = f"(λ{u}. {self.reuse([u, s], 1, (), 6, head.format(u=u, s=s))})"
        if self.chance(2):
            f = f"(grad1 {f})"
        return f"grad1 {f} {t}"

    def pair(self, scope: list, depth: int, funs: tuple) -> str:
        """A helper returning a pair, taken apart by projections or by a pattern."""
        self.features.add("returns-pair")
        a = self.fresh(self.pick(_NAMES))
        inner = [a] + (self.inputs if self.chance(2) else [])
        mk = self.fresh("pr")
        if "pair-closure" in self.want:  # (asked for only: other draws stay as they were)
            # a closure over the inputs as the first item, taken out by a pattern: stored,
            # not only called, it stays a coordinate, and rule 8f floats its operation
            # on what it captures out of it
            self.features.add("pair-closure")
            t = self.fresh("t")
            g = self.pick(("sin", "tanh", "exp"))
            first = f"λ{t}. {g}({self.pick(self.inputs)}) × ({self.real([t] + inner, 1)})"
            self.lets.append(f"let {mk} = λ{a}. ⟨{first}, {self.real(inner, 1)}⟩ in")
            arg = self.real(scope, depth, funs)
            u, v = self.fresh("u"), self.fresh("v")
            return f"(let ⟨{u}, {v}⟩ = {mk} ({arg}) in {u} ({self.leaf(scope)}) × {v})"
        self.lets.append(f"let {mk} = λ{a}. ⟨{self.real(inner, 1)}, {self.real(inner, 1)}⟩ in")
        arg = self.real(scope, depth, funs)
        u, v = self.fresh("u"), self.fresh("v")
        op = self.pick(("×", "+", "−"))
        if self.chance(2):
            return f"(let ⟨{u}, {v}⟩ = {mk} ({arg}) in {u} {op} {v})"
        q = self.fresh("q")
        return f"(let {q} = {mk} ({arg}) in π1 {q} {op} π2 {q})"

    def combinator(self, scope: list, depth: int, funs: tuple) -> str:
        """Higher-order helpers on ℝ → ℝ: composition, twice, a Church numeral
        iterating a function (each bound once, used at ℝ → ℝ).  An iterated
        function is bounded (sin or tanh outside), so iterating stays in the floats."""
        self.features.add("combinator")
        k = self.pick(("comp", "twice", "iter"))
        bound = "{}" if k == "comp" else self.pick(("sin({})", "tanh({})"))
        t = self.fresh("t")
        inner = [t] + (scope if self.chance(2) else [])
        body = self.real(inner, 1, funs)
        if "stored-call" in self.want and self.chance(2):  # (asked for only) a derivative
            # at a function inside the closure: what a coordinate's D-eval premise runs
            body = self.function_input(inner, 1, funs)
        f1 = f"(λ{t}. " + bound.format(body) + ")"
        t2 = self.fresh("t")
        f2 = f"(λ{t2}. " + bound.format(self.real([t2], 1, funs)) + ")"
        arg = self.real(scope, depth, funs)
        name = self.fresh(k)
        if k == "comp":
            f, g, z = self.fresh("f"), self.fresh("g"), self.fresh("z")
            self.lets.append(f"let {name} = λ{f}. λ{g}. λ{z}. {f} ({g} {z}) in")
            return self.stored(f"{name} {f1} {f2}", arg)
        if k == "twice":
            f, z = self.fresh("f"), self.fresh("z")
            self.lets.append(f"let {name} = λ{f}. λ{z}. {f} ({f} {z}) in")
            return self.stored(f"{name} {f1}", arg)
        f, z = self.fresh("f"), self.fresh("z")
        times = self.pick((1, 2, 3))
        self.lets.append(f"let {name} = λ{f}. λ{z}. {f'{f} (' * times}{z}{')' * times} in")
        return self.stored(f"{name} {f2}", arg)

    def stored(self, call: str, arg: str) -> str:
        """call arg -- or, now and then, the partial application ``call`` stored in a
        pair and taken out to be applied: a helper passed to it is then no call in the
        series (8c's full-application guards; the naive decomposer lacked them).
        Asked for, always, in either place of the pair, beside an input: the pair is
        then a stage rule 8 made a coordinate, and the closure taken out of it one
        too (the thorough profile, 2026-11-30: 105,827 steps, 7,382 once 8c takes
        such a pair apart)."""
        if "stored-call" in self.want:
            self.features.add("stored-call")
            other = self.leaf(list(self.inputs))
            if self.chance(2):
                return f"(π2 ⟨{other}, {call}⟩) ({arg})"
            return f"(π1 ⟨{call}, {other}⟩) ({arg})"
        if self.chance(4):
            self.features.add("stored-call")
            return f"(π1 ⟨{call}, 0⟩) ({arg})"
        return f"{call} ({arg})"

    def grad1(self, scope: list, depth: int, funs: tuple) -> str:
        """A let-bound derivative operator, as users define one, applied to a
        function (sometimes to its own result: a second derivative)."""
        self.features.add("grad1")
        if "grad1" not in self.library:
            self.use("grad1")
        t = self.fresh("t")
        inner = [t] + (scope if self.chance(2) else [])
        # (a body naming intermediates it reads twice, now and then: forward mode over
        # the derivative once copied their tangents, 2ᵏ steps)
        body = self.reuse(inner, 0, funs, 8) if self.chance(3) else self.real(inner, 1, funs)
        f = f"(λ{t}. {body})"
        arg = self.real(scope, depth, funs)
        if self.chance(3):
            self.features.add("grad1-nested")
            return f"grad1 (grad1 {f}) ({arg})"
        return f"grad1 {f} ({arg})"

    # ---- Church lists ----------------------------------------------------------------------
    def use(self, *names: str) -> None:
        self.library.update(names)

    def items(self, scope: list, depth: int, funs: tuple) -> list:
        return [self.real(scope, depth, funs) for _ in range(self.pick((1, 2, 3, 3, 4)))]

    def a_list(self, scope: list, depth: int, funs: tuple, at: str) -> str:
        """A Church list consumed at accumulator type ``at`` ("real", "cps" or
        "pair"): written out, or -- at the program's one type for cons lists --
        built by cons or by a Church numeral."""
        xs = self.items(scope, depth, funs)  # (first: they may build lists of their own)
        kinds = ["literal"]
        if self.lists_at in (None, at) and at != "pair":
            kinds += ["cons", "cons", "numeral"]
        k = self.pick(kinds)
        if k == "literal":
            self.features.add("list-literal")
            body = "d"
            for x in reversed(xs):
                body = f"f ({x}) ({body})"
            return f"(λf. λd. {body})"
        self.lists_at = at
        self.use("nil", "cons")
        if k == "cons":
            self.features.add("list-cons")
            out = "nil"
            for x in reversed(xs):
                out = f"cons ({x}) ({out})"
            return f"({out})"
        self.features.add("list-numeral")
        n = self.fresh("n")
        times = self.pick((1, 2, 3))
        self.lets.append(f"let {n} = λf. λa. {'f (' * times}a{')' * times} in")
        return f"({n} (λl. cons ({xs[0]}) l) nil)"

    def fold(self, scope: list, depth: int, funs: tuple) -> str:
        k = self.pick(("sum", "sum", "map", "foldr", "foldl", "pair-fold"))
        self.features.add(k)
        if k == "sum":
            self.use("sum")
            return f"sum {self.a_list(scope, depth, funs, 'real')}"
        if k == "map":
            self.use("sum", "map")
            x = self.fresh("el")
            if "map-helper" in self.want and self.chance(3):
                # (asked for only) map in a helper's body over a list written there, its
                # function calling a helper over the inputs: 8c follows the list to
                # map's λl (the thorough profile, 2026-11-29: 611 steps against 119)
                self.features.add("map-helper")
                c, y, h, a = self.fresh("c"), self.fresh("y"), self.fresh("h"), self.fresh("a")
                chain = self.reuse([y] + list(self.inputs), 1, (), 5)  # (a coordinate's
                # call re-runs it forwards in a premise, a copy once, in the series)
                self.lets.append(f"let {c} = λ{y}. {chain} in")
                lst = self.a_list([a], 1, funs, 'real')
                f = f"(λ{x}. {c} ({x}) × {self.real([x, a], 1)})"
                self.lets.append(f"let {h} = λ{a}. sum (map {f} {lst}) in")
                return f"{h} ({self.real(scope, depth, funs)})"
            if "map-helper" in self.want:  # (asked for only: other draws stay as they were)
                # the mapped function a let-bound helper over the inputs, as users bind one
                self.features.add("map-helper")
                g = self.fresh("g")
                self.lets.append(f"let {g} = λ{x}. {self.real([x] + list(self.inputs), depth)} in")
            else:
                g = f"(λ{x}. {self.real([x] + scope, depth, funs)})"
            return f"sum (map {g} {self.a_list(scope, depth, funs, 'real')})"
        if k == "foldr":
            self.use("foldr")
            x, acc = self.fresh("el"), self.fresh("acc")
            op = self.pick(("{x} × {acc}", "{x} + {acc}", "sin({x}) + {acc}",
                            "{acc} × {acc} + {x}"))
            f = f"(λ{x}. λ{acc}. {op.format(x=x, acc=acc)})"
            return f"foldr {f} ({self.real(scope, depth, funs)}) " \
                   f"{self.a_list(scope, depth, funs, 'real')}"
        if k == "foldl":
            self.use("foldl")
            x, acc = self.fresh("el"), self.fresh("acc")
            # (the last: Horner's rule, a folding function that captures an input)
            op = self.pick(("{acc} × {x}", "{acc} + {x}", "{acc} × {acc} + {x}",
                            "sin({acc}) + {x}", "{acc} × {w} + {x}"))
            w = self.pick(scope) if scope else "0.5"
            f = f"(λ{acc}. λ{x}. {op.format(x=x, acc=acc, w=w)})"
            return f"foldl {f} ({self.real(scope, depth, funs)}) " \
                   f"{self.a_list(scope, depth, funs, 'cps')}"
        # a fold whose accumulator is a pair (sum and product together)
        x, acc, pr = self.fresh("el"), self.fresh("acc"), self.fresh("pr")
        lst = self.a_list(scope, depth, funs, "pair")
        return (f"(let {pr} = {lst} (λ{x}. λ{acc}. ⟨π1 {acc} + {x}, π2 {acc} × {x}⟩) ⟨0, 1⟩ "
                f"in π1 {pr} × π2 {pr})")

    # ---- derivatives inside the program --------------------------------------------------
    def nested(self, scope: list, depth: int, funs: tuple) -> str:
        """A pullback (or an applied Jacobian) inside the differentiated body: its
        function, 1-form, point and tangent may all mention the outer variables."""
        y = self.fresh("y")
        k = self.pick(("Ω", "Ω", "Ω-let", "J", "J"))
        if k == "J":
            self.features.add("J-applied")
            point = self.real(scope, depth, funs)
            along = self.leaf(scope)
            if self.chance(2):  # linear in the outer variables: rule 13's product rule,
                # the direction often the same outer variable (both of its summands live)
                coeff = along if scope and self.chance(2) else self.leaf(scope)
                if self.chance(3):  # a computation on the outer variables: in the
                    # tangent premise a stage that reads no binder of the map (8Jc)
                    coeff = f"sin({coeff})" if self.chance(2) else f"({coeff} × 0.5)"
                body = f"{coeff} × ({self.real([y], depth, funs)})"
            else:  # (drawn only when used: a shape drawn and dropped left its feature noted)
                body = self.real([y] + scope, depth, funs)
            return f"(J(λ{y}. {body})·({along})) ({point})"
        body = self.real([y] + scope, depth, funs)
        point = self.real(scope, depth, funs)
        self.features.add("nested-Ω")
        z, w = self.fresh("z"), self.fresh("w")
        coeff = self.real([z] + scope, 1, funs) if self.chance(2) else "1"
        if "Ω-outer" in self.want and scope:  # (asked for only: other draws stay as they were)
            # the map and the 1-form both read an outer variable: differentiated in it,
            # the pullback's dual map has p in its map and its functional (rule 16c)
            self.features.add("Ω-outer")
            body = f"{y} × {self.pick(scope)} × ({body})"
            coeff = f"{self.pick(scope)} × ({coeff})"
        form = f"(λ{z}. λ{w}. ({coeff}) × {w})" if coeff != "1" else f"(λ{z}. λ{w}. {w})"
        tangent = self.leaf(scope)
        if k == "Ω-let":
            self.features.add("Ω-let-bound")
            p = self.fresh("p")
            return f"(let {p} = λ{y}. {body} in Ω({p}) {form} ({point}) ({tangent}))"
        return f"Ω(λ{y}. {body}) {form} ({point}) ({tangent})"

    def omega_let_helper(self, scope: list) -> str:
        """A helper whose body binds a map by a let, the map calling another helper h,
        and pulls back along it at a point that calls h too -- drawn only when asked
        for.  8c copies h to its calls: the let's abstraction applies h, which is
        known code once h is copied (the thorough profile, 2026-11-29: under a nested
        derivative, h as a coordinate took 2,811 steps against 604 written in place)."""
        self.features.update(("Ω-let-helper", "Ω-let-bound", "nested-Ω"))
        in_form = self.chance(2)
        h = self.derivative_helper(scope) if in_form and self.chance(2) else self.helper(scope)
        a, y, p, z, w, g = (self.fresh(s) for s in ("a", "y", "p", "z", "w", "h"))
        body = (f"(let {p} = λ{y}. {self._call_of(h, y, [a] + scope)} in "
                f"Ω({p}) (λ{z}. λ{w}. {w}) ({self._call_of(h, a, [a] + scope)}) (1))")
        self.lets.append(f"let {g} = λ{a}. {body} in")
        self.helpers[g] = ("curried", 1)
        if in_form:
            # called in the 1-form of a pullback applied at a point and a direction (a
            # let-bound 1-form once A-named): rule pb applies it there, so g's and h's
            # uses are calls (the property's search, 2026-11-30: h a coordinate, 5,270
            # steps against 1,494 written in place)
            y2, z2, w2 = self.fresh("y"), self.fresh("z"), self.fresh("w")
            return (f"Ω(λ{y2}. {self.real([y2], 1)}) (λ{z2}. λ{w2}. ({g} ({self.leaf(scope)}))"
                    f" × {w2}) ({self.leaf(scope)}) ({self.numeral()})")
        return f"{g} ({self.leaf(scope)})"

    def derivative_helper(self, scope: list) -> str:
        """A helper ℝ → ℝ whose body is a second derivative of a chain over its argument
        (a copy of it costs nothing, a coordinate of it a premise per use)."""
        if "grad1" not in self.library:
            self.use("grad1")
        v, u, h = self.fresh("v"), self.fresh("u"), self.fresh("h")
        chain = self.reuse([u, v] + scope, 1, (), 4, f"sin({u} × {u}) + {v}")
        self.lets.append(f"let {h} = λ{v}. grad1 (grad1 (λ{u}. {chain})) ({v}) in")
        self.helpers[h] = ("curried", 1)
        return h

    def omega_helper(self, scope: list) -> str:
        """A pullback in the program's body whose map calls a helper, ``Ω(λy. h y) ω P
        D`` -- drawn only when asked for.  8c copies h into the map, where rule pb runs
        it as stages (the thorough profile, 2026-11-30: h returning a pair's product
        along function inputs, a coordinate, took 49,232 steps against 15,646 written
        in place)."""
        self.features.update(("Ω-helper", "nested-Ω"))
        if self.chance(3):
            return self.omega_at_function(scope)
        if self.chance(2):  # a helper over the inputs holding a derivative at a function
            # along a function (what made the closure's tangent dear)
            h, m = self.fresh("h"), self.fresh("m")
            body = self.function_input([m] + list(self.inputs), 2, ())
            if self.chance(2):  # returned in a pair, taken apart
                u, v = self.fresh("u"), self.fresh("v")
                body = (f"let ⟨{u}, {v}⟩ = ⟨{body}, {self.real([m] + scope, 1, ())}⟩ "
                        f"in {u} × {v}")
            self.lets.append(f"let {h} = λ{m}. {body} in")
            self.helpers[h] = ("curried", 1)
        else:
            h = self.pick(sorted(self.helpers)) if self.helpers and self.chance(2) \
                else self.helper(scope)
        y, z, w = (self.fresh(s) for s in ("y", "z", "w"))
        coeff = self.real([z] + scope, 1, ()) if self.chance(2) else "1"
        return (f"Ω(λ{y}. {self._call_of(h, y, [y] + scope)}) (λ{z}. λ{w}. ({coeff}) × {w}) "
                f"({self.real(scope, 1, ())}) ({self.leaf(scope)})")

    def omega_at_function(self, scope: list) -> str:
        """``Ω(λg. g (Ω(λy. S) (λz. λw. h a × w) P D)) ω (λt. h t) (λt. h t)``: a
        derivative at a function along a function, both calling h, whose map calls h
        in a nested pullback's 1-form -- in a helper's body half the time.  8c's call
        analysis walked such a map as a bare abstraction, a use that is no call, and
        h stayed a coordinate that each derivative map differentiated through (th62,
        2026-12-01: a helper over x2 holding a derivative, 29,547 steps against 5,687
        with the helpers written in place)."""
        self.features.update(("Ω-at-function", "function-input", "nested-Ω"))
        h = self.derivative_helper(scope) if self.chance(2) else self.helper(scope)
        in_helper = self.chance(2)
        a = self.fresh("a")
        sc = [a] + scope if in_helper else scope
        g, t, y, z, w = (self.fresh(s) for s in ("g", "t", "y", "z", "w"))
        inner = (f"Ω(λ{y}. {self.real([y], 1, ())}) (λ{z}. λ{w}. "
                 f"({self._call_of(h, self.leaf(sc), sc)}) × {w}) ({self.leaf(sc)}) "
                 f"({self.leaf(sc)})")
        direction = f"λ{t}. {self._call_of(h, t, [t] + sc)}"
        if self.chance(2):
            # the direction folds a written list that calls h: foldr, copied to its call by
            # 8c, applies the λs it ends in to two arguments, and a call of h in the list
            # read as no call kept h a coordinate (th68, 2026-12-01: 77,080 steps for a row
            # against 46,961 with the helpers written in place)
            self.library.update(("nil", "cons", "foldr"))
            self.features.update(("foldr", "list-literal"))
            e, acc, f, d = (self.fresh(s) for s in ("e", "acc", "f", "d"))
            direction = (f"λ{t}. foldr (λ{e}. λ{acc}. {e} + {acc}) ({self.leaf([t] + sc)}) "
                         f"(λ{f}. λ{d}. {f} ({self._call_of(h, self.leaf(sc), sc)}) "
                         f"({f} ({t}) ({d})))")
        pb = (f"Ω(λ{g}. {g} ({inner})) (λz. λw. w) (λ{t}. {self._call_of(h, t, [t] + sc)}) "
              f"({direction})")
        if not in_helper:
            return pb
        k = self.fresh("h")
        self.lets.append(f"let {k} = λ{a}. {pb} in")
        self.helpers[k] = ("curried", 1)
        return f"{k} ({self.real(scope, 1, ())})"

    def omega_named_point(self, scope: list) -> str:
        """``Ω(λg. g R) ω (λt. k t) (λt. k' t)`` in the program's body, k and k' calls
        of a helper (holding a second derivative half the time, called through a
        helper over it half the time): A-normal form names the pullback, its point
        and its direction, ``let pb = Ω(…) ω in let fn = λt. k t in let app = pb fn``,
        and 8c's call analysis read a named point passed to a named pullback as no
        call -- the helpers stayed coordinates that each derivative map
        differentiated through (th69, 2026-12-01: 8,846 steps for a row against
        5,501 with the helpers written in place, 120,306 against 81,865)."""
        self.features.update(("Ω-named-point", "function-input"))
        h = self.derivative_helper(scope) if not self.chance(4) else self.helper(scope)
        if not self.chance(4):  # called through a helper over it, a tuple's items its arguments
            k, a, b = self.fresh("h"), self.fresh("a"), self.fresh("b")
            self.lets.append(f"let {k} = λ⟨{a}, {b}⟩. "
                             f"{self._call_of(h, self.real([a, b], 1, ()), [a, b] + scope)} in")
            self.helpers[k] = ("tupled", 2)
            h = k
        g, t, s_ = self.fresh("g"), self.fresh("t"), self.fresh("s")
        return (f"Ω(λ{g}. {g} ({self.real(scope, 1, ())})) (λz. λw. w) "
                f"(λ{t}. {self._call_of(h, t, [t] + scope)}) "
                f"(λ{s_}. {self.real([s_] + scope, 1, ()) if self.chance(2) else '0'} + "
                f"{self._call_of(h, s_, [s_] + scope)})")

    def vector_jacobian(self, scope: list) -> str:
        """``πᵢ ((J(λv : ℝ × ℝ. ⟨S₁, S₂⟩ ⊕ v ⊕ v)·⟨d₁, d₂⟩) ⟨p₁, p₂⟩)``: the directional
        derivative of a map ℝ² → ℝ² that adds its input vector twice (f(v) = g(v) + 2v,
        as ⊕ writes it), the Si over the inputs and π1 v, π2 v.  Differentiated again
        (the program's gradient), rule 6 composed the maps of that derivative with the
        vector v ⊕ v read as a real linear combination, 2 × v -- ill-typed, and the
        gradient stuck at π1 0 (the thorough profile, 2026-12-01)."""
        self.features.add("vector-J")
        v = self.fresh("v")
        inner = [f"π1 {v}", f"π2 {v}"] + scope
        parts = [f"⟨{self.real(inner, 1, ())}, {self.real(inner, 1, ())}⟩", v, v]
        k = self.pick((0, 1, 2))  # the pair first, between or last
        parts = parts[1:k + 1] + parts[:1] + parts[k + 1:]
        return (f"π{self.pick((1, 2))} ((J(λ{v} : ℝ × ℝ. {' ⊕ '.join(parts)})·"
                f"⟨{self.leaf(scope)}, {self.leaf(scope)}⟩) ⟨{self.real(scope, 1, ())}, "
                f"{self.leaf(scope)}⟩)")

    def shadowed_name(self, scope: list) -> str:
        """``let h = λt. λg. g t in Ω(λg. (J(λy. h y (λs. S))·d) P) (λz. λw. w) P' D``: a
        helper's parameter and the variable of a derivative that calls it share a name
        (g), and the function passed reads the derivative's g.  Inlined, the helper binds
        g again inside the derivative, the two directions are both called dg, and rule pb
        captured the outer one in the point of an inner stage map (ill-typed, found by
        the thorough profile's subject reduction, 2026-12-01)."""
        self.features.add("shadowed-name")
        g = self.fresh("g")
        h, t, y, s_ = self.fresh("h"), self.fresh("t"), self.fresh("y"), self.fresh("s")
        self.lets.append(f"let {h} = λ{t}. λ{g}. {g} {t} in")
        body = self.real([g, s_] + scope, 1, ()) if self.chance(2) else g
        return (f"Ω(λ{g}. (J(λ{y}. {h} {y} (λ{s_}. {body}))·({self.leaf(scope)})) "
                f"({self.leaf([g] + scope)})) (λz. λw. w) ({self.real(scope, 1, ())}) "
                f"({self.leaf(scope)})")

    def jacobian_helper(self, scope: list) -> str:
        """A Jacobian applied at a point, whose map calls a helper over the inputs,
        ``(J(λy. h y)·v) a`` -- in the program's body or in a helper's -- drawn only
        when asked for.  8c copies h into the map, where forward mode runs it (the
        thorough profile, 2026-11-30: h called in a 1-form inside J(λy. …)·1 in a
        helper's body, a coordinate: 1,323 steps against 328 written in place)."""
        self.features.update(("J-helper", "J-applied"))
        h = self.helper(scope)
        y = self.fresh("y")
        jac = f"(J(λ{y}. {self._call_of(h, y, [y] + scope)})·({self.leaf(scope)}))"
        if self.chance(2):  # in a helper's body
            g, a = self.fresh("h"), self.fresh("a")
            self.lets.append(f"let {g} = λ{a}. {jac} ({a} × {self.leaf(scope)}) in")
            self.helpers[g] = ("curried", 1)
            return f"{g} ({self.real(scope, 1, ())})"
        return f"{jac} ({self.real(scope, 1, ())})"

    def _call_of(self, h: str, first: str, scope: list) -> str:
        """h applied to ``first`` and leaves of scope for its other parameters."""
        kind, arity = self.helpers[h]
        args = [first] + [self.leaf(scope) for _ in range(arity - 1)]
        if kind == "tupled":
            return f"{h} ⟨{', '.join(args)}⟩"
        return f"{h} " + " ".join(f"({x})" for x in args)

    def constant_map(self, scope: list, depth: int, funs: tuple) -> str:
        """Ω(p) ω a b with p a let-bound function that ignores its argument (it may
        read the inputs) and ω's body a derivative at z times w -- drawn only when
        asked for.  Its value is 0 without reading ω's body (a dual map into 𝟎);
        its gradient differentiates the covector λdy. B × J(λy. p y)·dy u, whose
        atom is 0 at the point, and B's tangent was once computed before the atom
        was known (the thorough profile: 27,399 steps; rules 8Js and 8Jz)."""
        self.features.add("Ω-constant")
        if "grad1" not in self.library:
            self.use("grad1")
        y, z, w, u, p = (self.fresh(s) for s in ("y", "z", "w", "u", "p"))
        # (p's body is a leaf: the tangent of a costly constant function, J(λy. dp y)·dy
        # with dp constant too, is another zero factor, papers/calculus.md §9)
        f_p = f"λ{y}. {self.leaf(scope)}"
        if self.chance(2):
            # stored in a pair taken apart by a pattern, p stays a coordinate of the
            # series; let-bound alone (or in a pair only projected, which 8c takes
            # apart), 8c copies it to the pullback (a call), along a constant λ (pbc)
            self.lets.append(f"let ⟨{p}, {self.fresh('one')}⟩ = ⟨{f_p}, 1⟩ in")
        else:
            self.lets.append(f"let {p} = {f_p} in")
        # a second derivative of a chain over z: its tangent, one order more, is the
        # work a zero atom makes needless
        # (written over a placeholder for z's name: a helper binds it as its parameter)
        head = self.pick(("sin({u} × {u}) + {z}", "{u} × {z}", "tanh({u} + {z} × {u})"))
        f = f"(λ{u}. {self.reuse([u, _Z], 1, funs, 6, head.format(u=u, z=_Z))})"
        coeff, h = f"grad1 (grad1 {f}) {_Z}", None
        if self.chance(2):  # a helper over the derivative, called here and elsewhere
            h, m = self.fresh("h"), self.fresh("m")
            self.lets.append(f"let {h} = λ{m}. {coeff.replace(_Z, m)} in")
            coeff = f"{h} {_Z}"
        coeff = coeff.replace(_Z, z)
        a, b = self.leaf(scope), self.leaf(scope)
        pb = f"Ω({p}) (λ{z}. λ{w}. ({coeff}) × {w})"
        if self.chance(4):  # the pullback stored, then applied: p is no call of 8c's
            self.features.add("stored-call")
            pb = f"(π1 ⟨{pb}, 0⟩)"
        pb = f"{pb} ({a}) ({b})"
        self.alts.append((pb, f"0 × ((λ{z}. {coeff}) ({p} ({a})))"))
        return pb if h is None else f"({pb} + {h} ({self.leaf(scope)}))"

    def function_input(self, scope: list, depth: int, funs: tuple) -> str:
        """The derivative of g ↦ S (g : ℝ → ℝ) at a function, along a function."""
        self.features.add("function-input")
        g, t = self.fresh("g"), self.fresh("t")
        if "g-of-chain" in self.want or self.chance(4):
            body = f"{g} ({self.chain_argument(scope, g)})"
        else:
            body = self.real(scope, max(depth, 1), funs + (g,))
        if not re.search(rf"\b{g}\b", body):  # S uses g (a derivative 0 tests little)
            body = f"{g} ({body})"
        at = f"(λ{t}. {self.real([t] + scope, 1, funs)})"
        if "iterated-direction" in self.want and "iterated-direction" not in self.features:
            along = self.iterated_direction(scope)
        else:
            along = f"(λ{t}. {self.real([t] + scope, 1, funs)})"
        return f"Ω(λ{g}. {body}) (λz. λw. w) {at} {along}"

    def iterated_direction(self, scope: list) -> str:
        """(asked for only) A function direction λt. Ω(λy. y) (λz. λw. I × w) t 1 whose
        1-form's coefficient I is a derivative at a function along a closure iterated
        by a Church numeral (``iter`` in the lets: properties vary how often), each
        stage reading its input twice (mk s s), at the second derivative of a chain
        that mentions t.  Differentiated at an open t, the tangent is a graph whose
        paths double per stage: a covector's coefficient that is a sum was once
        reduced as a tree (the thorough profile, 2026-11-30: more than 3,000,000 steps
        against an evaluation of 2,891)."""
        self.features.add("iterated-direction")
        if "grad1" not in self.library:
            self.use("grad1")
        t, y, z, w = self.fresh("t"), self.fresh("y"), self.fresh("z"), self.fresh("w")
        inner = [t] + scope
        u = self.fresh("u")
        head = f"sin({u} × {u}) + {self.leaf(inner)}"
        chain = self.reuse([u] + inner, 1, (), 4, head, shortest=3)
        a, s, r = self.fresh("a"), self.fresh("s"), self.fresh("r")
        mk = self.fresh("mk")
        self.lets.append(f"let {mk} = λ{a}. let {s} = sin({a}) in λ{r}. sin({r} × {r}) + {s} in")
        it, f, z2 = self.fresh("iter"), self.fresh("f"), self.fresh("z")
        times = self.pick((1, 2, 3))
        self.lets.append(f"let {it} = λ{f}. λ{z2}. {f'{f} (' * times}{z2}{')' * times} in")
        h, m, e = self.fresh("h"), self.fresh("m"), self.fresh("e")
        pb = (f"Ω(λ{h}. {h} (grad1 (grad1 (λ{u}. {chain})) ({self.numeral()}))) (λz. λw. w) "
              f"(λ{m}. {self.leaf(scope)}) (λ{m}. {it} (λ{e}. sin({mk} {e} {e})) {m})")
        out = f"(λ{t}. Ω(λ{y}. {y}) (λ{z}. λ{w}. ({pb}) × {w}) {t} 1)"
        self.iterated.append(out)
        return out

    def chain_argument(self, scope: list, g: str) -> str:
        """The argument of g in a function input's body: a chain whose
        intermediates are read twice -- over the inputs, or over g at a point
        (so that g's covector has an atom J(λz. g z)·D a with D the chain's
        tangent along dg) -- or a (second) derivative of one, applied.
        Differentiating Ω(λg. g a) in an input composes the chain's stage maps
        into g's covector, or pulls a 1-form back at a function value (rule 6
        by substitution): each copied a stage's image into both reads of its
        variable, 2ᵏ for k stages."""
        self.features.add("g-of-chain")
        kind = self.pick(("inputs", "g", "derivative"))
        if kind == "inputs":
            return self.reuse(scope, 1, (), 6, f"sin({self.leaf(scope)} × {self.leaf(scope)})")
        if kind == "g":
            return self.reuse(scope, 1, (), 6, f"{g} ({self.leaf(scope)})")
        if "grad1" not in self.library:
            self.use("grad1")
        u = self.fresh("u")
        head = f"sin({u} × {u}) + {self.leaf(scope)}"
        # (at most 4 stages under two derivatives: sin(a × a) + 1 multiplies a
        # second derivative by up to 16 per stage, and the floats lose the row)
        f = f"(λ{u}. {self.reuse([u] + scope, 1, (), 4, head)})"
        if self.chance(2):
            f = f"(grad1 {f})"
        return f"grad1 {f} ({self.leaf(scope)})"

    # ---- the program -----------------------------------------------------------------------
    def program(self, m: int = 1) -> str:
        body = self.real(list(self.inputs), self.depth)
        if self.iterated and not any(d in body or any(d in x for x in self.lets)
                                     for d in self.iterated):
            self.features.discard("iterated-direction")  # (drawn in a part left out)
        for name in self.want:  # asked-for shapes the draw left out
            if name not in self.features:
                body = f"({body}) + ({self.shape(name)})"
        if m > 1:  # more outputs, drawn over the same helpers
            body = "⟨" + ", ".join([body] + [self.real(list(self.inputs), self.depth)
                                             for _ in range(m - 1)]) + "⟩"
        lib = [f"let {k} = {LIST_LIBRARY[k]} in" for k in LIST_LIBRARY if k in self.library]
        pat = self.inputs[0] if len(self.inputs) == 1 else f"⟨{', '.join(self.inputs)}⟩"
        return f"λ{pat}. " + " ".join(lib + self.lets + [body])

    def alternative(self, text: str) -> Optional[str]:
        """``UserProgram.alt`` for the program ``text``."""
        if not self.alts:
            return None
        for pb, yardstick in self.alts:
            text = text.replace(pb, yardstick)
        return text

    def shape(self, name: str) -> str:
        scope = list(self.inputs)
        if name in ("sum", "map", "foldr", "foldl", "pair-fold", "map-helper"):
            while name not in self.features:
                out = self.fold(scope, 1, ())
            return out
        if name in ("nested-Ω", "Ω-let-bound", "J-applied", "Ω-outer"):
            while name not in self.features:
                out = self.nested(scope, 1, ())
            return out
        if name == "iterated-direction":  # (written here: a function input drawn for it
            # may draw the direction in a nested part that it then leaves out)
            g, t = self.fresh("g"), self.fresh("t")
            return (f"Ω(λ{g}. {g} ({self.leaf(scope)})) (λz. λw. w) (λ{t}. "
                    f"{self.real([t] + scope, 1)}) {self.iterated_direction(scope)}")
        if name in ("function-input", "g-of-chain"):
            return self.function_input(scope, 1, ())
        if name == "returns-λ":
            return self.returned(scope, 1, ())
        if name == "returns-grad1":
            while name not in self.features:
                out = self.returned(scope, 1, ())
            return out
        if name in ("returns-pair", "pair-closure"):
            return self.pair(scope, 1, ())
        if name == "discarded":
            return self.discarded(scope, 1, ())
        if name == "Ω-constant":
            return self.constant_map(scope, 1, ())
        if name == "Ω-let-helper":
            return self.omega_let_helper(scope)
        if name == "Ω-helper":
            return self.omega_helper(scope)
        if name == "Ω-at-function":
            return self.omega_at_function(scope)
        if name == "Ω-named-point":
            return self.omega_named_point(scope)
        if name == "J-helper":
            return self.jacobian_helper(scope)
        if name == "vector-J":
            return self.vector_jacobian(scope)
        if name == "shadowed-name":
            return self.shadowed_name(scope)
        if name in ("combinator", "stored-call"):
            return self.combinator(scope, 1, ())
        if name == "let-reuse":
            return self.reuse(scope, 1, ())
        if name in ("grad1", "grad1-nested"):
            while name not in self.features:
                out = self.grad1(scope, 1, ())
            return out
        return self.call(scope, 1, ())


def programs(n: int = 2, depth: int = 3, want=(), m: int = 1) -> st.SearchStrategy[UserProgram]:
    """Closed programs λ⟨x1, …, xn⟩. … : ℝⁿ → ℝ written as users write them (see
    the module's docstring), with a point in [-1.5, 1.5]ⁿ.  ``want``: shapes
    (names of ``FEATURES``) every program must use.  ``m`` > 1: programs
    ℝⁿ → ℝᵐ, whose body is a tuple of m reals over the same helpers."""
    want = frozenset(want)
    unknown = want - set(FEATURES)
    if unknown:
        raise ValueError(f"unknown program features: {sorted(unknown)}")

    @st.composite
    def go(draw):
        b = _Builder(draw, n, depth, want)
        text = b.program(m)
        point = tuple(draw(st.lists(st.sampled_from((0.3, -0.7, 1.2, 0.5, -1.1, 0.9, 1.5)),
                                    min_size=n, max_size=n)))
        return UserProgram(text, n, point, frozenset(b.features), m, b.alternative(text))
    return go()


# ---- derivatives of long helpers: the same program at two lengths ----------------------

#: one stage of a chain: the new intermediate from the previous one ``{a}``, the
#: derivative's own variable ``{t}`` and the input ``{x}`` (bounded derivatives:
#: a chain of 32 stages keeps its second derivative within floating point)
_STAGES = ("sin({a})", "sin({a}) × 0.9 + {t}", "tanh({a} + {x})", "cos({a}) × {t}",
           "sin({a} × {x})", "exp(sin({a})) × 0.5", "{a} × cos({t})", "tanh({a}) + sin({a})")

#: how the chain's derivative is used: the gradient of a derivative (reverse over
#: reverse, the premise at a symbolic point), the same under a helper's closure,
#: or the gradient of a derivative of a derivative
_WRAPS = ("grad1", "closure", "grad1-twice")


@dataclass(frozen=True)
class DerivativeChain:
    """``λx. …`` whose value is the derivative, at an input-dependent point, of a
    let-bound helper that is a chain of stages: ``text(r)`` repeats the drawn
    stages r times, so a property can compare the cost at length k and 2k."""
    stages: tuple
    wrap: str
    point: float

    def text(self, repeat: int = 1) -> str:
        lets, prev = [], "t"
        for i, st_ in enumerate(self.stages * repeat):
            lets.append(f"let a{i} = {st_.format(a=prev, t='t', x='x')} in")
            prev = f"a{i}"
        f = f"(λt. {' '.join(lets)} {prev})"
        grad1 = "let grad1 = λf. λz. Ω(f) (λa. λw. w) z 1 in "
        if self.wrap == "closure":
            return f"λx. {grad1}let mk = λc. λz. grad1 {f} (z × c) in mk 0.5 x"
        if self.wrap == "grad1-twice":
            return f"λx. {grad1}grad1 (grad1 {f}) (x × 0.5)"
        return f"λx. {grad1}grad1 {f} (x × 0.5)"


def derivative_chains(min_k: int = 6, max_k: int = 10) -> st.SearchStrategy[DerivativeChain]:
    """A derivative of a helper of k stages (``_STAGES``) taken inside the program
    and differentiated again (``_WRAPS``): the shape whose cost was quadratic in k
    while every short program was cheap (the forward phase at the symbolic point
    nested a dual map per stage, papers/calculus.md §5.8)."""
    return st.builds(DerivativeChain,
                     st.lists(st.sampled_from(_STAGES), min_size=min_k, max_size=max_k
                              ).map(tuple),
                     st.sampled_from(_WRAPS),
                     st.sampled_from((0.3, -0.7, 0.9, 1.2)))


#: how a Church list of k elements is built: written out, by a let-bound ``cons``, by a
#: Church numeral iterating a cons closure, or by a helper consing twice per call
_BUILDERS = ("literal", "cons", "numeral", "numeral-helper")
#: how it is consumed (each bounded, whatever k)
_CONSUMERS = {
    "sum": "sum {l}",
    "map": "sum (map (λe. e × 0.5) {l})",
    "foldr": "{l} (λe. λacc. e + 0.5 × acc) 0",
    "foldl": "{l} (λe. λk. λacc. k (0.5 × acc + e)) (λacc. acc) 0",
    # the mapped function over the input: written in place, and a let-bound helper
    "map-capture": "sum (map (λe. sin(e × x)) {l})",
    "map-helper": "let g = λe. sin(e × x) in sum (map g {l})",
}
#: the element, a function of the input x
_ELEMENTS = ("x × x", "sin(x)", "x", "exp(0.1 × x) × x")


@dataclass(frozen=True)
class ChurchBuild:
    """``λx. …``: a Church list of k copies of an element computed from x, built
    one of ``_BUILDERS``' ways and consumed one of ``_CONSUMERS``' ways:
    ``text(k)`` at any k, so that a property can compare the cost at k, 2k, 4k."""
    builder: str
    consumer: str
    element: str
    point: float

    def text(self, k: int) -> str:
        used = ("nil", "cons") + (("sum", "map") if self.consumer.startswith("map") else
                                  ("sum",) if self.consumer == "sum" else ())
        lib = " ".join(f"let {n} = {LIST_LIBRARY[n]} in" for n in used)
        e = f"({self.element})"
        if self.builder == "literal":
            lst = "(λf. λd. " + f"f {e} (" * k + "d" + ")" * k + ")"
        elif self.builder == "cons":
            lst = "(" + f"cons {e} (" * k + "nil" + ")" * k + ")"
        elif self.builder == "numeral":
            lst = f"((λf. λa. {'f (' * k}a{')' * k}) (λl. cons {e} l) nil)"
        else:  # a helper of two conses, iterated k/2 times (k even) by a numeral
            n = max(1, k // 2)
            lst = (f"(let two = λl. cons {e} (cons {e} l) in "
                   f"(λf. λa. {'f (' * n}a{')' * n}) two nil)")
        return f"λx. {lib} {_CONSUMERS[self.consumer].format(l=lst)}"


def church_builds() -> st.SearchStrategy[ChurchBuild]:
    """Church lists of the program's own length built from the input (``ChurchBuild``):
    the shape whose gradient was quadratic in k (a Church numeral iterating a cons
    closure: every D-eval premise read the tail whole, and its fold was computed
    again) while every short list was cheap."""
    return st.builds(ChurchBuild, st.sampled_from(_BUILDERS), st.sampled_from(tuple(_CONSUMERS)),
                     st.sampled_from(_ELEMENTS), st.sampled_from((0.3, -0.7, 0.9, 1.2)))


#: how a list of the inputs is consumed (``InputList``)
_INPUT_CONSUMERS = {
    "sum": "sum {l}",
    "foldr": "foldr (λx. λacc. x × acc) 1 {l}",
    "foldr-add": "foldr (λx. λacc. x + acc) 0 {l}",
    "foldl": "foldl (λacc. λx. acc × 0.5 + x) 0 {l}",
    "map": "sum (map (λx. sin(x)) {l})",
}


@dataclass(frozen=True)
class InputList:
    """``λ⟨x1, …, xk⟩. …``: the inputs as a Church list written in place, λf. λd. f x1
    (f x2 (… d)), consumed one of ``_INPUT_CONSUMERS``' ways, at any k -- the reading
    the README recommends for a gradient over a list.  Each cell's closure is named at
    the top of the series and called at its far end (call by value evaluates the
    function first): moved there one at a time, a rebuild of the series each, the
    gradient was quadratic in work with linear steps (benchmarks/README.md, church)."""
    consumer: str

    def text(self, k: int) -> str:
        xs = [f"x{i}" for i in range(1, k + 1)]
        lst = "(λf. λd. " + "".join(f"f {x} (" for x in xs) + "d" + ")" * k + ")"
        lib = " ".join(f"let {n} = {LIST_LIBRARY[n]} in" for n in ("sum", "map", "foldr", "foldl"))
        return f"λ⟨{', '.join(xs)}⟩. {lib} {_INPUT_CONSUMERS[self.consumer].format(l=lst)}"

    @staticmethod
    def point(k: int) -> list:
        return [round(0.1 * (i % 7) + 0.2, 10) for i in range(k)]


def input_lists() -> st.SearchStrategy[InputList]:
    """Lists of the inputs written in place (``InputList``), each consumer."""
    return st.builds(InputList, st.sampled_from(tuple(_INPUT_CONSUMERS)))


#: how ``TupleNest`` writes its nest: in place, by lets, or by helpers that wrap and unwrap
_NEST_STYLES = ("written", "let", "helper")


@dataclass(frozen=True)
class TupleNest:
    """``λx. …``: x put k levels deep in a nest of tuples -- level i a pair or triple
    (``levels[i mod len]``: (position of the value, width)) whose other items are
    ``filler`` -- and projected out again, written one of ``_NEST_STYLES``' ways; the
    program returns sin(v) × x of what comes out.  tuple-proj (testing.extreme) is one
    of them: its reverse phase rebuilt a projection atom as deep as the nest at each
    step (a rule-5 image π₁ (… (π₁ dv)) whose innermost variable changes), quadratic
    in work with linear steps (issue 30)."""
    style: str
    levels: tuple  # ((position, width), …), cycled
    filler: str
    point: float

    def text(self, k: int) -> str:
        levels = [self.levels[i % len(self.levels)] for i in range(k)]

        def wrap(v: str, p: int, w: int) -> str:
            items = [self.filler] * w
            items[p - 1] = v
            return "⟨" + ", ".join(items) + "⟩"
        if self.style == "written":
            nest = "x"
            for p, w in levels:
                nest = wrap(nest, p, w)
            out = "".join(f"π{p} (" for p, _ in levels) + nest + ")" * k
            return f"λx. let v = {out} in sin(v) × x"
        if self.style == "let":
            lets = ["let t0 = x in"]
            lets += [f"let t{i} = {wrap(f't{i - 1}', p, w)} in" for i, (p, w) in
                     enumerate(levels, 1)]
            lets += [f"let u{i} = π{p} {f't{k}' if i == k else f'u{i + 1}'} in"
                     for i, (p, _) in reversed(list(enumerate(levels, 1)))]
            return "λx. " + " ".join(lets) + " sin(u1) × x"
        # (simply typed: a helper per level, each at its own type)
        helpers = [f"let wrap{i} = λv. {wrap('v', p, w)} in let out{i} = λt. π{p} t in"
                   for i, (p, w) in enumerate(levels, 1)]
        nest = "x"
        for i in range(1, k + 1):
            nest = f"wrap{i} ({nest})"
        for i in range(k, 0, -1):
            nest = f"out{i} ({nest})"
        return "λx. " + " ".join(helpers) + f" let v = {nest} in sin(v) × x"


def tuple_nests() -> st.SearchStrategy[TupleNest]:
    """Nests of tuples of the program's own depth around the input (``TupleNest``)."""
    level = st.sampled_from(((1, 2), (2, 2), (1, 3), (2, 3), (3, 3)))
    return st.builds(TupleNest, st.sampled_from(_NEST_STYLES),
                     st.lists(level, min_size=1, max_size=3).map(tuple),
                     st.sampled_from(("1", "x", "sin(x)")),
                     st.sampled_from((0.3, -0.7, 0.9, 1.2)))


# ---- metamorphic transformations: the same program, written differently -----------------

def _namer(term, stems: tuple):
    """A supply of names that occur nowhere in ``term``."""
    taken = {u.name for u in subterms(term) if isinstance(u, Var)}
    counter = [0]

    def new_name() -> str:
        while True:
            counter[0] += 1
            name = f"{stems[counter[0] % len(stems)]}{counter[0]}"
            if name not in taken:
                taken.add(name)
                return name
    return new_name


def _map_kids(t, go):
    kids = subterm_kids(t) if t.children() else ()
    return remake(t, [go(k) for k in kids]) if kids else t


def alpha_rename(term, style: str = "engine"):
    """``term`` with every bound variable renamed, capture-free: to names the engine
    generates itself (``style="engine"``: ``mul_1``, ``dx``, ``u_4``, …), to the
    names of directions (``"directions"``: each binder is named ``d`` and the name
    of the one before, ``v1``, ``dv1``, ``ddv1``, …: the engine names the direction
    of ``x`` ``dx`` unless that is taken), to plain fresh ones (``"plain"``) or,
    wherever no capture follows, to the name of a binder in scope (``"shadow"``:
    ``λx. let x = … in x``, as users write an accumulator or a loop variable again).
    The meaning, the rows and the steps stay (the steps: but for "directions",
    whose direction names are longer)."""
    new_name = _namer(term, ("mul_", "dx", "u_", "omega_", "app_", "d", "z_")
                      if style == "engine" else ("v",))
    if style == "directions":
        plain, last = new_name, [""]
        taken = {u.name for u in subterms(term) if isinstance(u, Var)}

        def new_name() -> str:
            name = "d" + last[0] if last[0] and len(last[0]) < 8 else plain()
            if name in taken:
                name = plain()
            taken.add(name)
            last[0] = name
            return name

    def rename_pattern(p, ren):
        if isinstance(p, Var):
            return Var(ren[p.name])
        return Tuple(tuple(rename_pattern(i, ren) for i in p.items))

    scope: list[str] = []  # (the names bound around the term gone into, innermost last)

    def name_for(body, chosen: set) -> str:
        if style == "shadow":
            free = fv(body)
            for y in reversed(scope):  # (the nearest binder whose name body does not read)
                if y not in free and y not in chosen:
                    return y
        return new_name()

    def go(t):
        if isinstance(t, Lam):
            ren: dict = {}
            for x in pattern_vars(t.pat):
                ren[x] = name_for(t.body, set(ren.values()))
            body = subst(t.body, {x: Var(y) for x, y in ren.items()})
            scope.extend(ren.values())
            out = Lam(rename_pattern(t.pat, ren), go(body), t.ann, t.pos)
            del scope[len(scope) - len(ren):]
            return out
        return _map_kids(t, go)
    return go(term)


def inline_helpers(term):
    """``let h = λq.S in B`` becomes ``B[λq.S/h]`` wherever the bound term is an
    abstraction (a helper): the program with its helpers written in place."""
    def go(t):
        if is_let(t) and isinstance(t.arg, Lam) and isinstance(t.fun.pat, Var):
            return go(subst(t.fun.body, {t.fun.pat.name: go(t.arg)}))
        return _map_kids(t, go)
    return go(term)


def project_written_pairs(term):
    """Every projection of a tuple written in place, ``πᵢ ⟨a₁, …, aₙ⟩``, made
    ``aᵢ`` (rule 2 ahead of time): with atoms beside aᵢ, the same program,
    nothing it computes dropped."""
    def go(t):
        if isinstance(t, Proj) and isinstance(t.arg, Tuple) \
                and 1 <= t.index <= len(t.arg.items):
            return go(t.arg.items[t.index - 1])
        return _map_kids(t, go)
    return go(term)


def add_unused_helpers(p: UserProgram, k: int) -> str:
    """The program's text with k helpers bound first that nothing calls, each
    using the one before (so only the last is unused as written): dead code."""
    pattern, body = p.text.split(". ", 1)  # λ⟨x1, …⟩. body
    x = "x1" if p.n > 1 else "x"
    unused = "".join(f"let unused{i} = λt. {f'unused{i - 1} (t) × ' if i else ''}"
                     f"sin(t × {x}) × cos(t + {x}) in " for i in range(k))
    return f"{pattern}. {unused}{body}"


def eta_expand_helpers(term):
    """Every let-bound helper ``λq.S`` written ``λz. (λq.S) z`` (η): the same function."""
    new_name = _namer(term, ("eta_",))

    def go(t):
        if is_let(t) and isinstance(t.arg, Lam):
            z = Var(new_name())
            return App(Lam(t.fun.pat, go(t.fun.body), t.fun.ann, t.fun.pos),
                       Lam(z, App(go(t.arg), z)), t.pos)
        return _map_kids(t, go)
    return go(term)
