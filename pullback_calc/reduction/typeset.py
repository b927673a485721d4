r"""Every rule label, typeset: the one source of the rules page of the documentation
and of the HTML stepper's rule hover.

``TYPESET[label]`` is a ``Typeset`` for every label of ``rules.RULES``: the rule
as LaTeX (one display per case: an equation, or an inference rule
``\dfrac{premise}{conclusion}``) with the condition each case needs, its
status (faithful / reconstruction / extension, as ``papers/calculus.md``'s
table "How sure we are" gives it), a short justification, the paper's
sentence it follows (None where no sentence survived or the rule is ours),
and the heading of ``papers/calculus.md`` that states it in full.

The LaTeX is turned into MathML once, when the package is built
(``python -m pullback_calc.reduction.typeset`` writes ``typeset_mathml.py``
with latex2mathml, from the ``docs`` extra), so the stepper's page stays
self-contained and the package needs no converter at run time; a test checks
that the written file is up to date.  Notation as in ``rules.py``: ``p`` the
environment pattern, ``p̂`` its direction pattern, ``V`` the point, ``P`` the
direction, ``ā = a[V/p]``, ``â = a[P/p]``.
"""
from __future__ import annotations

import html
from typing import NamedTuple, Optional

__all__ = ["Typeset", "TYPESET", "STATUSES", "implementation", "rule_html", "mathml_source"]

#: the three kinds of status; an entry's ``status`` starts with one of them
STATUSES = ("faithful", "reconstruction", "extension")


class Typeset(NamedTuple):
    label: str
    title: str
    #: (LaTeX, condition) per case; the condition is plain text ('' if none)
    cases: tuple
    #: as in calculus.md's table, e.g. "faithful", "faithful + extension"
    status: str
    justification: str
    #: the paper's sentence (its words, gaps as in calculus.md), or None
    paper: Optional[str]
    #: the start of the calculus.md heading that states the rule in full
    section: str

    @property
    def kind(self) -> str:
        return self.status.split()[0]


# a few pieces that recur (kept short so that each rule reads as it is printed)
_TO = r"\;\longrightarrow\;"  # spaced: browsers give the arrow no room of its own
_V = r"\;V"


def _jac(body: str, along: str = "P") -> str:
    """(J(λp.body)·along) V"""
    return rf"(\mathrm{{J}}(\lambda p.\,{body})\cdot {along}){_V}"


def _let(q: str, bound: str, body: str) -> str:
    return rf"\mathbf{{let}}\ {q} = {bound}\ \mathbf{{in}}\ {body}"


def _dual(lam: str, functional: str) -> str:
    return rf"({lam})^{{\star}}\,{functional}"


_TANGENT = _jac("S") + r" \Downarrow T"  # the tangent premise of 16b, 16c, 18
_ARG = _jac("a_2") + r" \Downarrow T_0"  # the argument's tangent (19b, 19c, 19m)
_ONE_TO_FOUR = "(1-4) are the standard call-by-value reductions"
_SEVEN_EIGHT = ("Reduction 7 is the base case and reduction 8 expresses the contra-variant "
                "property of pullbacks")
_SIXTEEN = ("we are reducing the let series in [S] using our pullback reductions, which does "
            "not suffer from expression swell")
_TENS = "Reductions 10-14"


def _t(label, title, cases, status, justification, paper, section):
    return Typeset(label, title, tuple(cases), status, justification, paper, section)


_ENTRIES = [
    # ---- A-reduction (areduction/anf.py) ----
    _t("A-name", "name an operand",
       [(rf"K[N] {_TO} " + _let("x", "N", "K[x]"),
         "N the first non-atomic operand of the node K[N], inside the body of the λ of an "
         "Ω or a J; x fresh, named after N")],
       "reconstruction",
       "let x = N in K[x] means K[N]: the intermediate result N gets a name and is computed "
       "once, as before automatic differentiation a program is split into elementary "
       "functions (Sabry–Felleisen's A-normal form).",
       None, "4.2"),
    _t("A-lift", "lift a let out of a let",
       [(_let("q", "(" + _let("r", "N", "M") + ")", "L") + f" {_TO} "
         + _let("r", "N", _let("q", "M", "L")),
         "r α-renamed away from the free variables of L and of the outer let; in A-contexts, "
         "and in the forward phase where q names a dual map's functional (L is "
         "(λv.S)⋆q, or let u = (λv.S)⋆q in L′: rule pb at an open point)")],
       "reconstruction",
       "A let in a let's bound term moves out: both sides compute N, then M, then L "
       "(associativity of let).",
       None, "4.2"),
    _t("A-tail", "name the result",
       [(rf"E {_TO} " + _let("x", "E", "x"),
         "E elementary, in the body (tail) of a let, and not that let's own variable")],
       "reconstruction",
       "let x = E in x means E; a let series ends by naming its own result, the shape "
       "rule 7 expects.",
       None, "4.2"),
    # ---- call-by-value ----
    _t("1", "β_v",
       [(rf"(\lambda q.\,S)\;V {_TO} S[V/q]",
         "V a value; an inert V (a stuck open term such as 3 + d) is substituted only where "
         "that copies no work, otherwise the let is kept and shared (open call-by-value); a "
         "chain of inert lets (the next let's bound term is inert and reads q) is kept")],
       "faithful + extension",
       "The argument is already a value, so substituting it computes it once however often "
       "q is used.",
       _ONE_TO_FOUR, "5.1"),
    _t("lift", "kept lets leave an inspected position",
       [(r"K[" + _let("q_1", "I_1", r"\ldots\ " + _let("q_n", "I_n", "W")) + rf"] {_TO} "
         + _let("q_1", "I_1", r"\ldots\ " + _let("q_n", "I_n", "K[W]")),
         "the lets were kept by rule 1 (each Iᵢ inert) and K is one frame whose hole a rule "
         "inspects (either side of an application, an item of a tuple, the argument of a "
         "projection, the direction of a Jacobian, the functional of a dual map, …); no qᵢ "
         "free in K")],
       "extension",
       "Both sides mean K[W][Iₙ/qₙ]…[I₁/q₁]: no qᵢ is free in K. The value W is then where "
       "the rule that inspects it can see it. The series is a substitution context, moved "
       "whole (reduction at a distance).",
       None, "8."),
    _t("2", "projection",
       [(rf"\pi_{{i}}\,\langle V_1, \ldots, V_n\rangle {_TO} V_i", "")],
       "faithful",
       "The standard projection of a tuple value.",
       _ONE_TO_FOUR, "5.2"),
    _t("3", "the vector-space laws",
       [(rf"(V_1 \oplus \cdots \oplus V_n)\;V {_TO} V_1\,V \oplus \cdots \oplus V_n\,V "
         rf"\qquad \mathbf{{0}}\;V {_TO} \mathbf{{0}}", "application is linear in the function"),
        (rf"\pi_{{i}}\,(V_1 \oplus \cdots \oplus V_n) {_TO} \pi_{{i}}\,V_1 \oplus \cdots "
         rf"\oplus \pi_{{i}}\,V_n \qquad \pi_{{i}}\,\mathbf{{0}} {_TO} \mathbf{{0}}", ""),
        (_dual(r"\lambda q.\,S", r"(V_1 \oplus \cdots \oplus V_n)") + f" {_TO} "
         + _dual(r"\lambda q.\,S", "V_1") + r" \oplus \cdots \oplus "
         + _dual(r"\lambda q.\,S", "V_n"), ""),
        (rf"\Omega(S)\;\mathbf{{0}} {_TO} \mathbf{{0}} \qquad "
         rf"\mathrm{{J}}(\lambda q.\,S)\cdot\mathbf{{0}} {_TO} \mathbf{{0}} \qquad "
         rf"f(\ldots, \mathbf{{0}}, \ldots) {_TO} f(\ldots, 0, \ldots)", ""),
        (rf"V_1 \oplus \cdots \oplus V_n {_TO} \text{{its normal form}}",
         "flatten nested sums and drop 𝟎; numerals r₁ ⊕ r₂ become r₁ + r₂ (rule 4 adds them); "
         "tuples add componentwise, abstractions pointwise; c × A ⊕ d × A becomes "
         "(c + d) × A when A occurs under ×")],
       "reconstruction",
       "⊕ is vector addition and 𝟎 its unit at every type. Application in function "
       "position, projection, a dual map in its functional, a pullback in its 1-form and a "
       "Jacobian in its direction are linear, so they distribute over sums and send 𝟎 to 𝟎.",
       None, "5.3"),
    _t("4", "δ: function symbols on numerals",
       [(rf"f(r_1, \ldots, r_k) {_TO} r",
         "r = f(r₁, …, rₖ) computed by the table EVAL; division by zero, log of a "
         "non-positive number or a non-finite result is an error labelled with rule 4")],
       "faithful",
       "The function symbols denote the usual real functions.",
       _ONE_TO_FOUR, "5.4"),
    _t("dual-app", "a dual map applied",
       [(r"(" + _dual(r"\lambda q.\,S", "P") + rf")\;V {_TO} P\;(S[V/q])", "")],
       "extension",
       "The dual map (λq.S)⋆P means the functional P after the linear map λq.S.",
       None, "dual-app"),
    # ---- dual maps ----
    _t("5", "the dual along a linear map",
       [(_dual(r"\lambda v.\,S", r"\mathbf{0}") + rf" {_TO} \mathbf{{0}} \qquad "
         + _dual(r"\lambda v.\,\mathbf{0}", "P") + rf" {_TO} \mathbf{{0}}", ""),
        (r"\dfrac{A_i[S/w] \Downarrow B_i \quad (i = 1, \ldots, k)"
         r"\qquad \langle \ldots, k_j \times c_j, \ldots \rangle \Downarrow "
         r"\langle \ldots, r_j, \ldots \rangle}{"
         + _dual(r"\lambda v.\,S", r"(\lambda w.\,T)")
         + rf" {_TO} \lambda v.\,\llbracket T[S/w] \rrbracket}}",
         "⟦·⟧ is the linear normal form (scalars distributed, equal atoms collected); the "
         "first premises rebuild the atoms A₁ … Aₖ that mention a re-bound variable of w "
         "inside a compound atom, the last one is the arithmetic of the touched "
         "coefficients, by rule 4 (no premise when there is nothing to rebuild or compute)")],
       "faithful + extension",
       "⟦(λv.S)⋆(λw.T)⟧ = ⟦λw.T⟧ ∘ ⟦λv.S⟧ = λv.⟦T[S/w]⟧: composing the covector of "
       "everything after an elementary term with that term's Jacobian is one step of "
       "back-propagation, and its multiplications and additions are steps of the trace.",
       "(5) reduces the dual along a linear map", "5.5"),
    _t("6", "contravariance of dual maps",
       [(_dual(r"\lambda v.\,S", "(" + _dual(r"\lambda w.\,S'", "P") + ")") + f" {_TO} "
         + _dual(r"\lambda v.\,\llbracket S'[S/w] \rrbracket", "P"),
         "P stuck (e.g. a free 1-form); ⟦·⟧ is rule 5's linear normal form, with its "
         "premises, when the maps go into a ground value's space, the plain substitution "
         "otherwise")],
       "faithful + extension",
       "f⋆(g⋆P) = P ∘ g ∘ f = (g ∘ f)⋆P, and λv.S'[S/w] = (λw.S') ∘ (λv.S).",
       "(6) is the contra-variant property of dual maps", "5.6"),
    # ---- pullbacks ----
    _t("7", "pullback along a let series: base case",
       [(r"\Omega(\lambda p.\," + _let("x", "E", "x") + rf")\;\omega {_TO} "
         r"\Omega(\lambda p.\,E)\;\omega", "")],
       "faithful",
       "let x = E in x is E.",
       _SEVEN_EIGHT, "5.7"),
    _t("8", "pullback along a let series: one let",
       [(r"\Omega(\lambda p.\," + _let("q", "E", "L") + rf")\;\omega {_TO} "
         r"\Omega(\lambda p.\,\langle p, E\rangle)\;(\Omega(\lambda\langle p, q\rangle.\,L)"
         r"\;\omega)",
         "L is not just q; the let binders of the series are first made unique")],
       "faithful",
       "λp. let q = E in L = (λ⟨p, q⟩.L) ∘ (λp.⟨p, E⟩), and pullbacks are contravariant: "
       "(g ∘ f)*ω = f*(g*ω). The environment ⟨p, q⟩ keeps every earlier variable in scope.",
       _SEVEN_EIGHT, "5.7"),
    _t("8c", "pullback past a constant",
       [(r"\Omega(\lambda p.\," + _let("q", "V", "L") + rf")\;\omega {_TO} "
         r"\Omega(\lambda p.\,L[V/q])\;\omega",
         "V a closed abstraction or a numeral, or V a variable or an abstraction applying "
         "none of its free variables and q occurs once in L, not as an operand A-name would "
         "bind, or such an abstraction every use of which is a call (of q, of an alias, in "
         "an abstraction L binds, inside a helper of L that only calls the parameter q "
         "is passed to, or in a pullback's map, 1-form, point or direction), or V a value that "
         "only dead lets of L read; L is not just q")],
       "extension",
       "let q = V in L is L[V/q] for a value V (β_v), which copies no work: a constant costs "
       "nothing to copy, and a value q names once is moved, not copied, even into an "
       "abstraction's body. λp binds no free variable of V that it did not bind before. "
       "Neither is a coordinate of the environment, so reverse mode computes no adjoint for "
       "it; the closures of a cons-built Church list become the written-out list (§9), and "
       "a helper's calls, even through twice or comp, become stages of the series.",
       None, "5.7"),
    _t("8f", "floating a helper's computation out",
       [(r"\Omega(\lambda p.\," + _let("q", r"\lambda s.\,C[E]", "L") + rf")\;\omega {_TO} "
         + r"\Omega(\lambda p.\," + _let("c", "E", _let("q", r"\lambda s.\,C[c]", "L"))
         + r")\;\omega",
         "E an operation outside the inner λs of λs.C[E] that reads no variable bound "
         "inside it and is finite whatever its variables are (sin, cos, tanh bound "
         "anything; +, −, ×, neg, exp keep bounded arguments bounded); c fresh")],
       "extension",
       "λs.C[E] and let c = E in λs.C[c] are the same function when E reads no variable "
       "bound inside it (full laziness), and E cannot fail. The helper then only "
       "passes closures over its free variables, so 8c moves it when it is used once, "
       "instead of rule 8 making it a coordinate whose calls are stuck in rule 17's premise.",
       None, "5.7"),
    _t("8h", "pullback past an operation on constants",
       [(r"\Omega(\lambda p.\," + _let("q", r"f(r_1, \ldots, r_k)", "L") + rf")\;\omega {_TO} "
         + _let("q", r"f(r_1, \ldots, r_k)", r"\Omega(\lambda p.\,L)\;\omega"),
         "f defined at the numerals r₁, …, rₖ (rule 4 applies); q renamed apart from p and ω")],
       "extension",
       "q is a constant of the map λp. let q = f(r̄) in L: computed once outside it (rule 4, "
       "then rule 1 substitutes the numeral), it is no coordinate of the environment whose "
       "adjoint (the derivative of every later stage along q) reverse mode would compute only "
       "to multiply it by 0. Being defined, the operation fails nowhere it would not have.",
       None, "5.7"),
    _t("pbc", "pullback along a constant map",
       [(r"\Omega(\lambda p.\,L)\;\omega " + _TO + r" \lambda p.\," + _let("y", "L", r"\mathbf{0}"),
         "L a let series in which no variable of p occurs but in the dropped items of "
         "written projections (or of a let-bound tuple of values that the let's body "
         "only projects), and whose first stage does not mention p's newest "
         "variable at all (before rules 7 and 8)")],
       "extension",
       "(f*ω)(V) = ω(f V) ∘ Jf(V), and Jf(V) = 0 for a constant map f: the zero covector at "
       "every point, whatever ω is. L is still evaluated at each point, as the pullback's "
       "forward phase evaluates it (a stage that fails still fails); ω is not applied, and no "
       "stage gets a Jacobian that reverse accumulation would compose with ω's covector "
       "before the first stage's zero map made the whole 0.",
       None, "5.7"),
    _t("pb", "pullback at a point",
       [(r"\Omega(\lambda p.\,E)\;\omega\;V " + _TO + " "
         + _dual(r"\lambda\hat{p}.\,(\mathrm{J}(\lambda p.\,E)\cdot\hat{p})\;V",
                 r"(\omega\;E[V/p])"),
         "E elementary; p̂ the direction pattern of p (every variable x renamed dx)"),
        (r"\Omega(\lambda p.\,E)\;\omega\;V " + _TO + " "
         + _let("w", r"\omega\;E[V/p]",
                _dual(r"\lambda\hat{p}.\,(\mathrm{J}(\lambda p.\,E)\cdot\hat{p})\;V", "w")),
         "E[V/p] open (a premise's symbolic point) and ω the pullback of the rest of a let "
         "series, three or more stages still to come: the functional is named, so the "
         "forward phase is a let series, not a nest of dual maps")],
       "faithful + extension",
       "(f*ω)(V) = ω(f V) ∘ Jf(V): the functional ω E[V/p] is computed now (the forward "
       "phase), the Jacobian in the map's body once the functional is a value (the reverse "
       "phase). Naming it is β_v: w occurs once. A let the later stages leave at the open "
       "point then joins the series once, instead of leaving every dual map around it.",
       "pullback reduction", "5.8"),
    # ---- Jacobians of elementary terms ----
    _t("9", "Jacobian of a constant",
       [(_jac("E") + rf" {_TO} \mathbf{{0}}",
         "p does not occur in E; for an abstraction E, outside the dropped items of a "
         "written projection πᵢ⟨V₁, …, M, …, Vₙ⟩ whose other items are values, or of "
         "let t = ⟨V₁, …, Vₙ⟩ in B, B taking only projections πⱼ t")],
       "faithful + extension",
       "The Jacobian of a constant function is 0. An abstraction that reads p only in "
       "items a projection drops is constant too: call by value evaluates πᵢ⟨V₁, …, M, …, "
       "Vₙ⟩ to M's value whatever the values Vⱼ are.",
       "If [y] is not a free variable in [E] … we reduce [it] to [0]", "Rule 9 "),
    _t("10", "Jacobian of a variable",
       [(_jac("x") + rf" {_TO} \hat{{x}}",
         "x a variable of p; x̂ the component of P at x's position in p")],
       "reconstruction",
       "A coordinate projection of the environment is linear, and a linear map is its own "
       "Jacobian.",
       _TENS, "Rule 10 "),
    _t("11", "Jacobian of a projection",
       [(_jac(r"\pi_{i}\,a") + rf" {_TO} \pi_{{i}}\,\hat{{a}}", "")],
       "reconstruction",
       "Projections are linear.",
       _TENS, "Rule 11 "),
    _t("12", "Jacobian of a formal sum",
       [(_jac(r"a_1 \oplus \cdots \oplus a_k") + rf" {_TO} \bigoplus\,\{{\,\hat{{a}}_i \mid "
         r"p \text{ occurs in } a_i\,\}", "an empty sum is 𝟎")],
       "reconstruction",
       "The formal sum is linear; summands that do not depend on p contribute 0.",
       _TENS, "Rule 12 "),
    _t("13", "Jacobian of a Jacobian",
       [(_jac(r"\mathrm{J}(\lambda q.\,S)\cdot a") + rf" {_TO} \mathrm{{J}}(\lambda q.\,S)"
         r"\cdot\hat{a}", "p occurs in a, not in λq.S"),
        (_jac(r"\mathrm{J}(\lambda q.\,S)\cdot a") + rf" {_TO} \mathrm{{J}}(\lambda q.\,"
         r"S[P/p])\cdot a",
         "p occurs in S, not in a, and S is linear in the variables of p it mentions"),
        (_jac(r"\mathrm{J}(\lambda q.\,S)\cdot a") + rf" {_TO} \mathrm{{J}}(\lambda q.\,"
         r"S[P/p])\cdot\bar{a} \oplus \mathrm{J}(\lambda q.\,S[V/p])\cdot\hat{a}",
         "p occurs in S and in a, S linear as above (an extension: the product rule)")],
       "reconstruction",
       "J(λq.S)·a is bilinear, linear in its direction and in its map: differentiating in p "
       "replaces whichever argument depends on p by its derivative, and both when both do.",
       _TENS, "Rule 13 "),
    _t("14", "Jacobian of a pullback's 1-form",
       [(_jac(r"\Omega(F)\;a") + rf" {_TO} \Omega(F)\;\hat{{a}}", "p occurs in a, not in F")],
       "reconstruction",
       "The pullback Ω(F)ω is linear in the 1-form ω.",
       _TENS, "Rule 14 "),
    _t("15", "Jacobian of a function symbol",
       [(_jac(r"f(a_1, \ldots, a_k)") + rf" {_TO} \bigoplus\,\{{\,\partial_i f(\bar{{a}}_1, "
         r"\ldots, \bar{a}_k) \times \hat{a}_i \mid p \text{ occurs in } a_i,\ \hat{a}_i "
         r"\neq \mathbf{0}\,\}",
         "∂ᵢf from the table PARTIALS; a partial that is identically 1 is left out; rule 4 "
         "computes the partials in the next steps")],
       "faithful",
       "The chain rule with the known Jacobian of f: Jf(ā)(â) = Σᵢ ∂ᵢf(ā) · âᵢ.",
       None, "Rule 15 "),
    _t("16a", "Jacobian of a dual map, p only in the functional",
       [(_jac(_dual(r"\lambda q.\,S", "a")) + f" {_TO} " + _dual(r"\lambda q.\,S", r"\hat{a}"),
         "p occurs in a, not in λq.S")],
       "faithful",
       "A dual map is linear in its functional.",
       "the Jacobian … is [the dual along â]", "Rule 16a "),
    _t("16b", "Jacobian of a dual map, p only in the map",
       [(r"\dfrac{" + _TANGENT + "}{" + _jac(_dual(r"\lambda q.\,S", "a")) + f" {_TO} "
         + _dual(r"\lambda q.\,T", "a") + "}",
         "p occurs in λq.S, not in a; q renamed apart from p, P and V; the premise runs as "
         "the pullback of a fresh free 1-form, Ω(λp.S) ω V P ⇓ ω S̄ T")],
       "faithful (premise: reconstruction)",
       "The dual map is linear in its map, and so is abstraction: the derivative passes "
       "inside, J(p ↦ a ∘ (λq.S))(V)(P) = a ∘ (λq. J(λp.S)(V)(P)).",
       _SIXTEEN, "Rule 16b "),
    _t("16c", "Jacobian of a dual map, p in both",
       [(r"\dfrac{" + _TANGENT + "}{" + _jac(_dual(r"\lambda q.\,S", "a")) + f" {_TO} "
         + _dual(r"\lambda q.\,\bar{S}", r"\hat{a}") + r" \oplus "
         + _dual(r"\lambda q.\,T", r"\bar{a}") + "}",
         "p occurs in λq.S and in a; q renamed apart from p, P and V")],
       "faithful (premise: reconstruction)",
       "(m, φ) ↦ φ ∘ m is bilinear: its derivative is the sum of the two partial "
       "derivatives, each with the other argument held at its value.",
       _SIXTEEN, "Rule 16c "),
    _t("17", "a pullback or Jacobian inside the differentiated term",
       [(r"\dfrac{E\;u \Downarrow W}{" + _jac("E") + f" {_TO} "
         + _jac(r"\lambda u.\,W") + "}",
         "E = Ω(λq.S) a with p in λq.S, or E = J(λq.S)·a with p in λq.S where rule 13 does "
         "not apply; u fresh; if W is E u itself the rule declines and the redex is a value")],
       "reconstruction + extension",
       "E denotes a function, so E = λu. E u (η), and reduction preserves meaning: E and "
       "λu.W are the same function of p. A differential operator is never differentiated "
       "as a symbol; rule 18 differentiates the abstraction next.",
       "we simply reduce [it] to [a fresh variable] … and replace", "Rule 17 "),
    _t("18", "Jacobian of an abstraction (D-curry)",
       [(r"\dfrac{" + _TANGENT + "}{" + _jac(r"\lambda q.\,S") + rf" {_TO} \lambda q.\,T}}",
         "q renamed apart from p and from the free variables of P and V")],
       "faithful",
       "The D-curry law: the Jacobian of a curried function is the curried Jacobian of its "
       "body, J(p ↦ λq.S)(V)(P) = λq. J(p ↦ S)(V)(P).",
       "similar to the dual map case", "Rule 18 "),
    _t("18L", "D-curry inside a forward premise (lazy)",
       [(_jac(r"\lambda q.\,S") + rf" {_TO} \lambda q.\," + _jac("S"),
         "inside a forward tangent premise (7J/8J); q renamed as in 18; p, P and V "
         "narrowed to the coordinates of p free in S; the contractum is 𝟎 when their "
         "direction is a zero vector")],
       "extension",
       "The D-curry law itself, as for 18, with the body's Jacobian left as a redex under "
       "λq, reduced when the function is applied: rule 19m can then see which function a "
       "tangent is the derivative of.  The tangent is a value that outlives the premise, "
       "so it keeps only the coordinates its body reads (a Jacobian does not depend on the "
       "others).",
       None, "Rule 18L"),
    _t("19a", "Jacobian of an application, p only in the function",
       [(_jac("a_1\\,a_2") + rf" {_TO} \hat{{a}}_1\;a_2", "p occurs in a₁, not in a₂")],
       "faithful",
       "Evaluation at a fixed argument, g ↦ g a₂, is linear.",
       None, "Rule 19a"),
    _t("19b", "Jacobian of an application (D-eval)",
       [(r"\dfrac{" + _ARG + r" \quad (T_0 \neq \mathbf{0})}{" + _jac("a_1\\,a_2")
         + rf" {_TO} \hat{{a}}_1\;\bar{{a}}_2 \oplus (\mathrm{{J}}(\lambda z.\,S)\cdot T_0)"
         r"\;\bar{a}_2}",
         "p occurs in a₂; λz.S is ā₁ if it is an abstraction, λu.W with a second premise "
         "ā₁ u ⇓ W if ā₁ is a pullback, Jacobian, dual map or sum of such, and the η-form "
         "λz. ā₁ z otherwise; a zero summand is left out")],
       "faithful + extension",
       "The D-eval rule: the derivative of an evaluation g(x) along (δg, δx) is "
       "δg(x) + Jg(x)(δx), with δg = â₁, x = ā₂ and δx = T₀.",
       "similar to the dual map case", "Rule 19b"),
    _t("19c", "Jacobian of an application, the argument constant",
       [(r"\dfrac{" + _ARG + r" \quad (T_0 \text{ a zero vector})}{" + _jac("a_1\\,a_2")
         + rf" {_TO} \hat{{a}}_1\;\bar{{a}}_2}}",
         "p occurs in a₂; the contractum is 𝟎 when â₁ is a zero vector")],
       "faithful",
       "D-eval with δx = T₀ = 0: Jg(x)(0) = 0 whatever g is, so only δg(x) = â₁ ā₂ remains.",
       "If [the premise] reduces to 0, which means [it] is a constant function, the "
       "Jacobian … is just [â₁ ā₂]", "Rule 19c"),
    _t("19m", "D-eval on a lazy tangent (merged)",
       [(r"\dfrac{" + _ARG + r" \quad (T_0 \neq \mathbf{0})}{" + _jac("a_1\\,a_2")
         + rf" {_TO} (\mathrm{{J}}(\lambda\langle p', y\rangle.\,S')\cdot\langle P', T_0"
         r"\rangle)\;\langle V', \bar{a}_2\rangle}",
         "â₁ = λy. (J(λp'.S')·P') V' (an 18L tangent) and ā₁ = λy. S'[V'/p'], syntactically; "
         "y occurs in none of p', P', V'")],
       "extension",
       "19b's two summands are the partial derivatives of the one map (p', y) ↦ S' at "
       "⟨V', ā₂⟩; their sum is its Jacobian along ⟨P', T₀⟩, which makes foldl's gradient "
       "linear.",
       None, "Rule 19m"),
    _t("20a", "Jacobian of a tuple",
       [(_jac(r"\langle a_1, \ldots, a_n\rangle") + rf" {_TO} \langle " + _jac("a_1")
         + r", \ldots, " + _jac("a_n") + r"\rangle", "")],
       "faithful",
       "The Jacobian of a tuple is the tuple of the Jacobians.",
       None, "Rule 20a"),
    _t("20b", "Jacobian of an environment extension",
       [(_jac(r"\langle p, E\rangle") + rf" {_TO} \langle P, " + _jac("E") + r"\rangle",
         "the first component is the binder pattern p itself (built by rule 8)")],
       "extension",
       "20a for the stage λp.⟨p, E⟩ of rule 8: the identity component's Jacobian is P "
       "itself, in one step, with no walk over the environment.",
       None, "Rule 20b"),
    _t("7J", "Jacobian of a let series: base case",
       [(r"\mathrm{J}(\lambda p.\," + _let("x", "E", "x") + rf")\cdot P {_TO} "
         r"\mathrm{J}(\lambda p.\,E)\cdot P", "")],
       "extension",
       "Rule 7 for Jacobians: let x = E in x is E.",
       None, "7J and 8J"),
    _t("8J", "Jacobian of a let series: one let (the chain rule, forwards)",
       [(_jac(_let("q", "E", "L")) + rf" {_TO} (\mathrm{{J}}(\lambda\langle p, q\rangle.\,L)"
         r"\cdot\langle P, " + _jac("E") + r"\rangle)\;\langle V, \bar{E}\rangle",
         "the let binders of the series are first made unique, as in rule 8; at an open "
         "point an inert component of V, and one of P that the series reads twice or more, "
         "is first bound by a let (open call-by-value: computed once)")],
       "extension",
       "The chain rule along a let series, applied forwards: the environment's value grows "
       "by E's value and its tangent by E's tangent, each computed once.",
       None, "7J and 8J"),
    _t("8Jc", "Jacobian of a let series past a constant stage",
       [(_jac(_let("q", "A", "L")) + rf" {_TO} (\mathrm{{J}}(\lambda p.\,L[A/q])\cdot P)\;V",
         "A an atom (a variable or a numeral, or a closed abstraction) in which no variable "
         "of p occurs"),
        (_jac(_let("q", "E", "L")) + rf" {_TO} " + _let("q", "E", _jac("L")),
         "E a closed operation, application or projection; q renamed apart from p, P and V")],
       "extension",
       "A stage that reads no variable of p is a constant of the map: its tangent is 0 (rule "
       "9), and 8J would carry that 0 through every later stage as a coordinate's tangent. "
       "An atom is substituted (β_v); a closed computation is evaluated outside the Jacobian, "
       "once, and its value substituted by rule 1 (J(f)·P V applies f at V, so E is evaluated "
       "either way). A value that is no atom is named again by A-name and is a stage of 8J.",
       None, "7J and 8J"),
    _t("8Jd", "Jacobian of a let series past a stage nothing live reads",
       [(_jac(_let("q", "E", "L")) + rf" {_TO} (\mathrm{{J}}(\lambda\langle p, q\rangle.\,L)"
         r"\cdot\langle P, \mathbf{0}\rangle)\;\langle V, \bar{E}\rangle",
         "no live part of L reads q: not L's result, nor a stage that a live part reads in "
         "turn")],
       "extension",
       "L is then the same function of ⟨p, q⟩ whatever q is, so its tangent is the same "
       "along any tangent of q: 8J with 0 for E's tangent, which is not computed (a "
       "closure's derivative along a function coordinate, a nested derivative unfolded "
       "at the point). E's value is computed, as call by value computes every stage.",
       None, "7J and 8J"),
    _t("8Jz", "Jacobian of a let series past a stage multiplied by zero",
       [(_jac(_let("q", "E", "L")) + rf" {_TO} (\mathrm{{J}}(\lambda\langle p, q\rangle.\,L)"
         r"\cdot\langle P, \mathbf{0}\rangle)\;\langle V, \bar{E}\rangle",
         "L ends, at most eight stages on, in a product a × y (either order, or the last "
         "stage let m = a × y in m), y a variable of p whose value in V is 0 and which L "
         "does not bind")],
       "extension",
       "L's result has the tangent ȳ × da ⊕ ā × dy = ā × dy, which reads no tangent that q "
       "or a stage of L contributes: 8J with 0 for E's, which is not computed (the "
       "derivative of a covector's coefficient whose atom is 0: a pullback along a map "
       "whose Jacobian is 0 at the point). E's value is computed, as call by value "
       "computes every stage.",
       None, "7J and 8J"),
    _t("8Js", "Jacobian of a let series: the atom before its coefficient",
       [(_jac(_let("q", "E", "L")) + rf" {_TO} " + _jac(r"A;\ " + _let("q", "E", "L'")),
         "L ends, at most eight stages on, in a product k × r; E is an application that "
         "reads no free variable of the map; A is the chain of stages of L that r reads in "
         "turn, not empty, reading a free variable of the map, and reading neither q nor "
         "another stage of L, nor binding a variable of E; L' is L without A (every binder "
         "of the series new)")],
       "extension",
       "The same function of p, its stages in another order. Rule 18 differentiates a "
       "covector λv. k × a (rule 5's linear normal form) with v free in the map: the atom "
       "a, linear in v, is computed with its tangent before the coefficient's stages, so "
       "that when it is 0, 8Jz computes none of their tangents. After the rule the atom's "
       "stages come first, so it cannot undo itself.",
       None, "7J and 8J"),
]

TYPESET: dict[str, Typeset] = {e.label: e for e in _ENTRIES}


def implementation(label: str) -> tuple[str, str]:
    """(module, function name) of the function that implements ``label``."""
    from ..areduction.anf import A_RULES
    from .rules import RULES
    fn = A_RULES.get(label) or RULES[label]
    return fn.__module__, fn.__qualname__


def mathml_source(latex: str, display: str = "block") -> str:
    r"""``latex`` as MathML (needs latex2mathml: the ``docs`` extra), adjusted for the
    browsers' MathML Core, which draws every one-letter ``<mi>`` in italics and knows
    no bold variant: J (the Jacobian) and Ω stay upright, ``\mathbf`` is bold."""
    from latex2mathml.converter import convert
    # λp.\,E: a binder's dot is punctuation (no space before it), not an operator
    out = convert(latex.replace(r".\,", r"\mathpunct{.}"), display=display)
    for upright in ("&#x0004A;", "&#x003A9;"):  # J, Ω
        out = out.replace(f"<mi>{upright}</mi>", f'<mi mathvariant="normal">{upright}</mi>')
    return out.replace('mathvariant="bold"', 'mathvariant="normal" style="font-weight:bold"')


def rule_html(label: str) -> str:
    """The typeset rule as HTML: each case's MathML display and its condition.
    Uses the MathML written at build time (``typeset_mathml.py``)."""
    from .typeset_mathml import MATHML
    entry = TYPESET[label]
    parts = []
    for (_latex, cond), math in zip(entry.cases, MATHML[label]):
        parts.append(f'<div class="pc-case">{math}'
                     + (f'<div class="pc-cond">{html.escape(cond)}</div>' if cond else "")
                     + "</div>")
    return "".join(parts)


def _write(path) -> None:
    lines = ['"""MathML of every rule of ``typeset.TYPESET``, one display per case.',
             "",
             "Written by ``python -m pullback_calc.reduction.typeset`` (latex2mathml); do",
             'not edit: change typeset.py and run that again (a test checks it is current)."""',
             "", "MATHML = {"]
    for label, entry in TYPESET.items():
        lines.append(f"    {label!r}: (")
        for latex, _ in entry.cases:
            lines.append(f"        {mathml_source(latex)!r},")
        lines.append("    ),")
    lines.append("}")
    from pathlib import Path
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover - run by hand after editing the rules above
    from pathlib import Path
    _write(Path(__file__).with_name("typeset_mathml.py"))
