// Printing terms from one table of the pretty printer's pieces (rendering/table.py),
// as text.bounded does: bounded, from either end, cut at token boundaries.  Shared by
// the stepper (stepper.html) and the graph explorer (explorer.html).
// N[k] = [prec, folds, pieces...]: a piece is a string, or a child as two numbers
// (its index and the precedence it is printed at; -1: a pattern).  U: Unicode spellings.
function pcTerms(N, U) {
  "use strict";
  var SLACK = 24, MIN_TERM = 12, CUT = 12;
  var DOTS = U ? "\u2026" : "...", FOLD_L = U ? "\u27e8\u2026, " : "<..., ", FOLD_R = U ? "\u27e9" : ">";
  function cplen(s) {  // length in code points, as Python counts (𝟎 is two UTF-16 units)
    var n = s.length;
    for (var i = 0; i < s.length; i++) { var c = s.charCodeAt(i); if (c >= 0xD800 && c < 0xDC00) n--; }
    return n;
  }
  // the pieces of entry k printed at precedence need (null: as a pattern), in order;
  // a child is pushed as the number k * 128 + need + 1
  function task(k, need, folded) {
    var e = N[k], out = [];
    if (folded && e[1]) {  // ⟨…, c⟩: the last item
      var c = e[e.length - 3], cn = e[e.length - 2];
      out.push(FOLD_L, c * 128 + (need === null ? 0 : cn + 1), FOLD_R);
    } else {
      for (var i = 2; i < e.length; i++) {
        var x = e[i];
        if (typeof x === "string") out.push(x);
        else { out.push(x * 128 + (need === null ? 0 : e[i + 1] + 1)); i++; }
      }
    }
    if (need !== null && e[0] < need) { out.unshift("("); out.push(")"); }
    return out;
  }
  // the first (or last) limit+ characters of the whole text, and whether that is all of it
  function walk(k, limit, fromEnd, folded) {
    var out = [], n = 0, st = [k * 128 + 1], complete = true;  // at precedence 0 (λ)
    while (st.length) {
      var x = st.pop();
      if (typeof x === "string") {
        out.push(x); n += cplen(x);
        if (n >= limit + SLACK) { complete = false; break; }
      } else {
        var p = task(Math.floor(x / 128), x % 128 === 0 ? null : x % 128 - 1, folded);
        if (fromEnd) for (var i = 0; i < p.length; i++) st.push(p[i]);
        else for (var j = p.length - 1; j >= 0; j--) st.push(p[j]);
      }
    }
    if (fromEnd) out.reverse();
    return [out.join(""), complete && n <= limit];
  }
  var WORD = /[\p{L}\p{N}_']/u, DIGIT = /[\p{Nd}\p{No}]/u;
  function words(a, lo, hi) {  // is a[i] part of a name or numeral, for lo <= i < hi
    var w = [], last = a.length - 1;
    for (var i = lo; i < hi && i < a.length; i++) {
      var c = a[i];
      w.push(WORD.test(c) || (c === "." && i > 0 && i < last && DIGIT.test(a[i - 1]) && DIGIT.test(a[i + 1])));
    }
    return w;
  }
  function cutHead(s, n) {  // the first n characters, moved back to a token boundary
    var a = Array.from(s);
    if (n >= a.length) return s;
    var lo = Math.max(n - CUT, 1) - 1, w = words(a, lo, n + 1);
    for (var k = n; k > lo; k--)
      if (!(w[k - 1 - lo] && w[k - lo])) return a.slice(0, k).join("").replace(/\s+$/, "") + (a[k - 1] === " " ? " " : "");
    return a.slice(0, n).join("");
  }
  function cutTail(s, n) {  // the last n characters, moved forward to a token boundary
    var a = Array.from(s);
    if (n <= 0) return "";
    if (n >= a.length) return s;
    var start = a.length - n, hi = Math.min(start + CUT, a.length - 1), w = words(a, start - 1, hi + 1);
    for (var k = start; k <= hi; k++) if (!(w[k - start] && w[k - start + 1])) return a.slice(k).join("");
    return a.slice(start).join("");
  }
  // the text of entry k, abbreviated around an ellipsis to about limit characters (null: whole)
  function bounded(k, limit, folded) {
    if (limit === null || limit === undefined) return walk(k, Infinity, false, folded)[0];
    limit = Math.max(limit, MIN_TERM);
    var h = walk(k, limit, false, folded);
    if (h[1]) return h[0];
    var keep = limit - cplen(DOTS), half = Math.floor(keep / 2);
    var t = walk(k, half, true, folded);
    return cutHead(h[0], keep - half) + DOTS + cutTail(t[0], half);
  }
  return {bounded: bounded, walk: walk, cplen: cplen, DOTS: DOTS, FOLD_L: FOLD_L,
          FOLD_R: FOLD_R};
}
