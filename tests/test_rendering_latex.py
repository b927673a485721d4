"""LaTeX traces: pure ASCII, the paper's rule labels and macros, balanced braces when
abbreviated, and the running example's trace compiled by pdflatex (required in CI)."""
import os
import re
import shutil
import subprocess

import pytest

import pullback_calc as pc
from pullback_calc.cli import main
from pullback_calc.rendering.latex import tex_name, term_to_latex, trace_to_latex

F = "λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2"
CHURCH = ("Ω(λl. l (λx. λacc. x + acc) 0) (λz. λw. w) (λc. λn. c 1 (c 2 (c 3 n))) "
          "(λc. λn. c 10 (c 20 (c 30 n)))")


def balanced(s: str) -> bool:
    depth = 0
    for m in re.finditer(r"\\[{}]|[{}]", s):
        if m[0] in ("\\{", "\\}"):
            continue
        depth += 1 if m[0] == "{" else -1
        if depth < 0:
            return False
    return depth == 0


def test_terms_use_macros_and_are_ascii():
    t = pc.parse("λ⟨x, y⟩. let s = x ⊕ 𝟎 in ⟨π1 s, J(λz. sin(z))·y, (λv. 2 × v)⋆ ω, "
                 "Ω(λa. a) ω, x ^ (y + 1), −x, 1e-7, -2⟩")
    s = term_to_latex(t)
    assert s.isascii() and balanced(s)
    for macro in (r"\lambda", r"\langle", r"\rangle", r"\oplus", r"\mathbf{0}", r"\pi_{1}",
                  r"\mathrm{J}(", r"\cdot", r")^{\star}", r"\Omega(", r"\sin(", r"\omega",
                  r"x^{y + 1}", r"\mathbf{let}", r"\mathbf{in}", r"\times", r"{-2}"):
        assert macro in s, macro
    assert tex_name("add_2") == r"\mathit{add}_{2}"
    assert tex_name("x1") == "x_{1}" and tex_name("x") == "x" and tex_name("α") == r"\alpha"
    assert tex_name("d_x_y") == r"\mathit{d\_x\_y}"


def test_abbreviated_terms_stay_balanced():
    t = pc.parse("λx. " + "sin(" * 40 + "x ^ (2 ^ (3 ^ y))" + ")" * 40)
    for limit in (12, 20, 33, 50, 80):
        s = term_to_latex(t, limit)
        assert r"\dots" in s and balanced(s), (limit, s)
    deep_pow = pc.parse("x ^ (y ^ (z ^ (w ^ (v ^ (u ^ (a + b + c + d + e + f + g + h))))))")
    for limit in range(12, 40, 3):
        assert balanced(term_to_latex(deep_pow, limit))


def test_trace_layout():
    r = pc.jacobian_row(F, [1.5, 2], 0)
    frag = trace_to_latex(r.trace)
    assert frag.isascii() and "\\documentclass" not in frag and balanced(frag)
    assert frag.count(r"\to\;") == 57  # 52 steps + 5 in rule 5's arithmetic premises
    for label in ("(A-name)", "(A-lift)", "(A-tail)", "(8)", "(7)", "(pb)", "(4)", "(15)",
                  "(20b)", "(5)", "(1)"):
        assert "{" + label + "}" in frag or label + "}" in frag, label
    assert "reverse phase" in frag and "forward phase" in frag
    doc = trace_to_latex(r.trace, standalone=True, title="Ω(f) at ⟨1.5, 2⟩ — e₀⋆",
                         term=r.term, value=r.covector)
    assert doc.isascii() and doc.startswith("\\documentclass") and doc.rstrip().endswith(
        "\\end{document}")
    assert r"$\Omega$(f)" in doc and "e$_{0}$" in doc
    only = trace_to_latex(r.trace, rules="5", phase_headings=False)
    # the rule-5 steps, and the rule-4 steps of their arithmetic premises
    assert only.count(r"\to\;") == sum(s.rule == "5" for s in r.trace) + sum(
        len(d.steps) for s in r.trace if s.rule == "5" for d in s.premises)


def test_context_lines_are_typeset_like_the_redex_line():
    """Issue 29: the "in …" line under a step was the text context transliterated
    (`mul\\_1\\ \\hat{}\\ 2`, a plain `let`, ⋆ on the baseline); it is now the TeX
    printer's pieces, as the redex line above it."""
    from pullback_calc.rendering.latex import context_to_latex
    r = pc.jacobian_row(F, [1.5, 2], 0)
    frag = trace_to_latex(r.trace)
    lines = [l for l in frag.splitlines() if r"{\scriptsize in\ }" in l]
    assert len(lines) == sum(s.ctx is not None for s in r.trace) > 40
    assert all(balanced(l) for l in lines)
    for bad in (r"\hat{}", r"\_", r"\ \allowbreak let", r"let\ \allowbreak", r"\star "):
        assert not any(bad in l for l in lines), bad
    step1 = context_to_latex(r.trace[1])  # (x + 1) × (2 × x + y²) inside let mul₁ = □ in mul₁²
    assert (r"\mathbf{let}\ \mathit{mul}_{1} = \fbox{$(x + 1) \times (2 \times x + y^{2})$}"
            r"\allowbreak\ \mathbf{in}\ \mathit{mul}_{1}^{2})") in step1
    # a dual map's star raised, the hole in parentheses where the text context has them
    step0 = pc.reduce("(λv. v × 2)⋆ ((λf. f) (λw. w))").trace[0]
    assert context_to_latex(step0) == (r"(\lambda v.\allowbreak\, v \times 2)^{\star}\allowbreak\,"
                                       r"(\fbox{$\mathbf{let}\ f = \lambda w.\allowbreak\, w"
                                       r"\allowbreak\ \mathbf{in}\ f$})")


def test_premises():
    r = pc.reduce("Ω(λ⟨a, l⟩. l (λx. λacc. a × x + acc) 0) (λz. λw. w) "
              "⟨2, λc. λn. c 1 (c 2 (c 3 n))⟩ ⟨1, λc. λn. n⟩")
    s = trace_to_latex(r.trace)
    assert r"$\vdash$ premise (19b)" in s and r"\Downarrow" in s
    assert trace_to_latex(r.trace, premises=False).count(r"\vdash") == 0


def _pdflatex():
    exe = shutil.which("pdflatex")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("pdflatex is missing in CI: .ci/run installs texlive-latex-base")
        pytest.skip("pdflatex is not installed (apt-get install texlive-latex-base)")
    return exe


def _compile(tmp_path, name, text):
    exe = _pdflatex()
    (tmp_path / f"{name}.tex").write_text(text, encoding="ascii")
    p = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=240)
    log = (tmp_path / f"{name}.log").read_text(encoding="latin-1") if (
        tmp_path / f"{name}.log").exists() else p.stdout
    assert p.returncode == 0, log[-3000:]
    assert (tmp_path / f"{name}.pdf").stat().st_size > 1000
    return log


def test_running_example_compiles_with_pdflatex(tmp_path, capsys):
    assert main(["trace", "-e", F, "--jacobian", "--at", "1.5,2", "--format", "latex",
                 "-o", str(tmp_path / "running.tex")]) == 0
    log = _compile(tmp_path, "running", (tmp_path / "running.tex").read_text(encoding="ascii"))
    assert "Overfull" not in log


def test_fragment_with_premises_compiles_inside_a_paper(tmp_path):
    r = pc.reduce(CHURCH)
    frag = trace_to_latex(r.trace, term=pc.parse(CHURCH), value=r.value, max_term=200)
    paper = ("\\documentclass{article}\n\\begin{document}\nSome text.\n\n" + frag
             + "\nMore text.\n\\end{document}\n")
    _compile(tmp_path, "paper", paper)


def test_the_kept_pieces_change_no_output():
    """The TeX printer's pieces are kept per node for the next steps: keyed by the
    node, its precedence and the folding mode, so a warm memo prints what a cold one
    does, in either mode."""
    from pullback_calc.rendering import latex as L
    trace = pc.jacobian_row("λx. " + "sin(" * 40 + "x" + ")" * 40, [0.7], 0).trace
    L._TASKS.clear()
    folded = L.trace_to_latex(trace, max_term=80)
    unfolded = L.trace_to_latex(trace, max_term=80, fold=False)
    assert L.trace_to_latex(trace, max_term=80) == folded  # warm, after the other mode
    L._TASKS.clear()
    assert L.trace_to_latex(trace, max_term=80, fold=False) == unfolded
    assert folded != unfolded and 0 < len(L._TASKS) <= L._TASKS_CAP
