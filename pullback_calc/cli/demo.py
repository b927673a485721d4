"""``pullback-calc demo``: the running example (Example 3.1), phase by phase."""
from __future__ import annotations

from .check import check_lines
from .options import max_steps_args, width_args
from .show import fmt_point, fmt_row

# The bundled running example (Example 3.1); examples/running_example.pb is a
# byte-for-byte copy (tests/test_examples.py checks), so that the demo needs
# no file at all.
DEMO_POINT = (1.5, 2.0)
DEMO_SOURCE = """\
# The running example of Mak & Ong (Example 3.1):
#
#     f(x, y) = ((x + 1)(2x + y^2))^2        f : R x R -> R
#
# Its Jacobian at (1.5, 2) is [420, 350]:
#     df/dx = 2(x+1)(2x+y^2) * ((2x+y^2) + 2(x+1)) = 2 * 2.5 * 7 * 12 = 420
#     df/dy = 2(x+1)(2x+y^2) * (x+1) * 2y          = 2 * 17.5 * 2.5 * 4 = 350
#
# Run it:
#     pullback-calc demo                                    (this example, explained)
#     pullback-calc jacobian examples/running_example.pb --at 1.5,2
#     pullback-calc jacobian examples/running_example.pb --at 1.5,2 --trace
#     pullback-calc check    examples/running_example.pb --at 1.5,2

λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2
"""

PHASES = {
    "A": "A-reduction: name every intermediate result (let series of elementary terms)",
    "decompose": "decompose: split the pullback along the let series (rules 7, 8)",
    "forward": "forward: evaluate at the point, building the dual maps (rules pb, 4, 1, ...)",
    "reverse": "reverse: differentiate and pull the covector back (rules 5, 15, 20b, ...)",
}


def add(sub) -> None:
    p = sub.add_parser("demo", help="the running example (Example 3.1), phase by phase",
                       allow_abbrev=False)
    max_steps_args(p)
    p.add_argument("--ascii", action="store_true", help="print ASCII spellings only")
    width_args(p)
    p.set_defaults(run=run)


def run(args, out) -> int:
    from .. import jacobian_row, parse, pretty, typecheck
    from ..rendering.text import trace_lines
    from ..syntax.printer import pretty_type
    u, width = not args.ascii, args.width
    term = parse(DEMO_SOURCE)
    ty = typecheck(term)
    r = jacobian_row(term, DEMO_POINT, 0, max_steps=args.max_steps)
    lines = [
        "The running example of Mak & Ong (Example 3.1), examples/running_example.pb:",
        "",
        f"    f = {pretty(term, u)}    : {pretty_type(ty, u)}",
        "",
        f"Row 0 of its Jacobian at V = {fmt_point(DEMO_POINT)} is the normal form of "
        f"Ω(f) (λz. e₀*) V," if u else
        f"Row 0 of its Jacobian at V = {fmt_point(DEMO_POINT)} is the normal form of "
        f"pullback(f) (\\z. e0*) V,",
        f"    {pretty(r.term, u)}",
        f"reached in {r.steps} steps, in four phases:",
    ]
    counts: dict = {}
    inner: dict = {}  # steps inside premises (rule 5's arithmetic, …), by the phase they serve

    def count_premises(step, phase):
        for d in step.premises:
            for s in d.steps:
                inner[phase] = inner.get(phase, 0) + 1
                count_premises(s, phase)
    for step in r.trace:
        counts[step.phase] = counts.get(step.phase, 0) + 1
        count_premises(step, step.phase)
    phase = None
    for step in r.trace:
        if step.phase != phase:
            phase = step.phase
            extra = f", and {inner[phase]} in premises" if inner.get(phase) else ""
            lines += ["", f"== {PHASES.get(phase, phase)}  [{counts[phase]} steps{extra}] =="]
        lines.extend(trace_lines([step], u, width))  # the step (and premises, if any)
    lines += ["", f"normal form (the covector): {pretty(r.covector, u)}",
              f"Jacobian at {fmt_point(DEMO_POINT)}: {fmt_row(r.row)}", ""]
    check, ok, ref = check_lines(term, DEMO_POINT, 1e-9, args.max_steps)
    lines.append(f"Cross-check with {ref}:")
    lines += ["  " + s for s in check]
    lines.append("  all rows agree" if ok else "  MISMATCH: reduction and sympy disagree")
    out.write("\n".join(lines) + "\n")
    return 0 if ok else 1
