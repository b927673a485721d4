"""Issue 30, item 4: rule 5 reads a stage's Jacobian image (``c × dx``, a sum of
such) without the graph bookkeeping of ``linear.to_lincomb`` -- a tree is read
top-down, each node once.  The shortcut must give the very combination the
graph reading gives: the same atoms in the same order with the same coefficient
terms (unfolded, they are what rule 5's arithmetic premise reduces, step by
step), and it must give way on a graph (a node reached twice: its multipliers
are summed first there, a different term)."""
from hypothesis import given, strategies as st

from pullback_calc.reduction import linear
from pullback_calc.reduction.env import PatVars
from pullback_calc.syntax.terms import Num, Prim, Sum, Tuple, Var, Zero

_LIN = PatVars(Tuple((Var("da"), Var("db"), Var("dc"))))
_CONSTANTS = [Num(0.5), Num(2.0), Num(0.0), Num(1.0), Var("k"), Prim("cos", (Num(0.3),))]


@st.composite
def _linear_terms(draw, depth: int = 4):
    """A term linear in da, db, dc: variables, 𝟎, sums, products by a constant
    on either side; sometimes the same node twice (a graph)."""
    made: list = []

    def go(d: int):
        kind = draw(st.sampled_from(["var", "var", "zero", "sum", "mul", "mul", "again"]
                                    if d else ["var", "zero", "again"]))
        if kind == "again" and made:
            return draw(st.sampled_from(made))
        if kind in ("var", "again"):
            t = Var(draw(st.sampled_from(["da", "db", "dc"])))
        elif kind == "zero":
            t = Zero()
        elif kind == "sum":
            t = Sum(tuple(go(d - 1) for _ in range(draw(st.integers(2, 3)))))
        else:
            c, u = draw(st.sampled_from(_CONSTANTS)), go(d - 1)
            t = Prim("mul", (c, u) if draw(st.booleans()) else (u, c))
        made.append(t)
        return t
    return go(depth)


def _read(t, fold: bool) -> list:
    return list(linear._graph_lincomb(t, _LIN, fold).items())


@given(_linear_terms(), st.booleans())
def test_a_tree_is_read_as_the_graph_reading_reads_it(t, fold):
    tree = linear._tree_lincomb(t, _LIN, fold)
    if tree is not None:
        assert list(tree.items()) == _read(t, fold)
    assert list(linear.to_lincomb(t, _LIN, fold).items()) == _read(t, fold)


def test_a_shared_node_is_left_to_the_graph_reading():
    dx = Prim("mul", (Var("k"), Var("da")))
    t = Sum((Prim("mul", (Num(2.0), dx)), Prim("mul", (Num(3.0), dx))))
    assert linear._tree_lincomb(t, _LIN, False) is None
    # the graph reading adds the two paths' multipliers before multiplying by k
    [(atom, k)] = linear.to_lincomb(t, _LIN, False).items()
    assert atom == Var("da") and k == Prim("mul", (Prim("add", (Num(2.0), Num(3.0))),
                                                     Var("k")))
    # a tree with the same shape reads each path's product
    t2 = Sum((Prim("mul", (Num(2.0), dx)),
              Prim("mul", (Num(3.0), Prim("mul", (Var("k"), Var("da")))))))
    [(atom, k)] = linear._tree_lincomb(t2, _LIN, False).items()
    assert k == Prim("add", (Prim("mul", (Num(2.0), Var("k"))),
                             Prim("mul", (Num(3.0), Var("k")))))


def test_a_stage_image_is_read_by_the_shortcut():
    """c × dx and a sum of such (a sin stage's image, Σ xᵢxᵢ₊₁'s): the shortcut
    answers, so rule 5's common step builds none of the graph's tables."""
    for t in (Prim("mul", (Num(0.5), Var("db"))),
              Sum((Prim("mul", (Num(0.5), Var("da"))), Prim("mul", (Num(2.0), Var("db"))))),
              Sum((Var("da"), Var("dc")))):
        assert linear._tree_lincomb(t, _LIN, False) is not None
