"""The generated parts of the documentation site (used by hooks.py and by the tests).

- ``cli_reference``: every subcommand of ``pullback-calc``, read off the argument
  parser itself (``pullback_calc.cli.parser.build_parser``): its summary, description,
  usage line and every option with its help, so the page cannot drift from the program.
- ``rules_reference``: every label of ``pullback_calc.reduction.rules.RULES``, typeset
  from ``pullback_calc.reduction.typeset`` (the same HTML the stepper shows on hover),
  with status, justification, the paper's sentence, the implementing function and the
  section of papers/calculus.md that states it in full.
- ``json_schema``: the JSON Schema of traces, as the package defines it.
- ``mathml``: LaTeX to MathML (latex2mathml), for the math of the pages.
"""
from __future__ import annotations

import argparse
import html
import os
import posixpath
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# ---- math ---------------------------------------------------------------------------------

def mathml(latex: str, block: bool) -> str:
    """As the typeset rules are written (J and Ω upright, binders' dots as punctuation)."""
    from pullback_calc.reduction.typeset import mathml_source
    return mathml_source(latex.strip(), display="block" if block else "inline")


# ---- relative links -----------------------------------------------------------------------

def _rel(target: str, src_uri: str) -> str:
    """A link from the page ``src_uri`` to the page ``target`` (both relative to docs/)."""
    return posixpath.relpath(target, posixpath.dirname(src_uri) or ".")


# ---- the command line -----------------------------------------------------------------------

def _text(text: str) -> str:
    """Plain text as Markdown: brackets, stars and the like are not markup."""
    return re.sub(r"([\\`*_\[\]<])", r"\\\1", text)


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _help(action: argparse.Action, prog: str) -> str:
    text = action.help or ""
    if "%" in text:  # as argparse expands it
        params = dict(vars(action), prog=prog)
        if params.get("choices") is not None:
            params["choices"] = ", ".join(map(str, params["choices"]))
        text = text % params
    return text


def _flags(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest.upper()}`"
    if action.nargs == 0:
        return ", ".join(f"`{o}`" for o in action.option_strings)
    meta = action.metavar
    if meta is None:
        meta = ("{" + ",".join(map(str, action.choices)) + "}" if action.choices
                else action.dest.upper())
    if isinstance(meta, tuple):
        meta = " ".join(meta)
    if action.nargs == "?":
        meta = f"[{meta}]"
    return ", ".join(f"`{o} {meta}`" for o in action.option_strings)


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """name -> parser, in the order ``pullback-calc --help`` lists them."""
    from pullback_calc.cli.parser import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _summaries() -> dict[str, str]:
    from pullback_calc.cli.parser import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest: a.help or "" for a in sub._choices_actions}


def cli_reference(src_uri: str = "reference/cli.md") -> str:
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "92"  # argparse wraps the usage line to the terminal
    try:
        return _cli_reference()
    finally:
        if saved is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = saved


def _cli_reference() -> str:
    from pullback_calc.cli.parser import build_parser
    top = build_parser()
    subs, summaries = subcommands(), _summaries()
    out = ["| command | does |", "|---|---|"]
    out += [f"| [`{name}`](#{name}) | {_cell(summaries.get(name, ''))} |" for name in subs]
    out += ["", "Options every command takes are listed with each command. "
            f"`{top.prog} --version` prints the version; `{top.prog} COMMAND --help` prints "
            "what this page shows for COMMAND.", ""]
    for name, p in subs.items():
        out += [f"## `{name}` {{#{name}}}", "", f"*{summaries.get(name, '')}*", ""]
        if p.description:
            out += [p.description, ""]
        out += ["```text", p.format_usage().strip(), "```", ""]
        for group in p._action_groups:
            rows = [a for a in group._group_actions if not isinstance(a, argparse._HelpAction)]
            if not rows:
                continue
            title = group.title or "options"
            out += [f"**{title[0].upper() + title[1:]}**", "", "| argument | meaning |",
                    "|---|---|"]
            for a in rows:
                out.append(f"| {_flags(a)} | {_cell(_help(a, p.prog))} |")
            out.append("")
        if p.epilog:
            out += [p.epilog, ""]
    return "\n".join(out)


# ---- the gallery ------------------------------------------------------------------------------

def _summary(name: str) -> str:
    """The first comment line of examples/NAME.pb (what the example is), or ''."""
    p = ROOT / "examples" / f"{name}.pb"
    if not p.exists():
        return ""
    for line in p.read_text(encoding="utf-8").splitlines():
        text = line.lstrip("#").strip()
        if line.startswith("#") and text:
            return text.rstrip(":")
    return ""


def gallery(src_uri: str = "gallery.md") -> str:
    """One row per trace in viz/: its stepper and graphs, linked; the strategy graph
    shown on demand."""
    to = lambda rel: _rel(rel, src_uri)  # noqa: E731
    out = ["| example | stepper | graphs |", "|---|---|---|"]
    for page in sorted((ROOT / "viz").glob("*.trace.html")):
        name = page.name.removesuffix(".trace.html")
        graphs = [f"[{kind}]({to(f'viz/{name}.{kind}.svg')})"
                  for kind in ("strategy", "whole", "full")
                  if (ROOT / "viz" / f"{name}.{kind}.svg").exists()]
        what = _summary(name)
        source = (f"[`{name}`]({to(f'examples/{name}.pb')})"
                  if (ROOT / "examples" / f"{name}.pb").exists() else f"`{name}`")
        out.append(f"| {source}{' — ' + _cell(_text(what)) if what else ''} | "
                   f"[open]({to(f'viz/{name}.trace.html')}) | {', '.join(graphs)} |")
    return "\n".join(out)


# ---- the JSON schema ------------------------------------------------------------------------

def json_schema(src_uri: str = "reference/json.md") -> str:
    import json
    from pullback_calc.rendering.json_trace import TRACE_SCHEMA
    return "```json\n" + json.dumps(TRACE_SCHEMA, indent=2, ensure_ascii=False) + "\n```"


# ---- the rules ------------------------------------------------------------------------------

def _heading_anchor(prefix: str, text: str) -> tuple[str, str]:
    """(id, title): the id that the toc extension gives the first heading of ``text`` whose title
    starts with ``prefix`` (ids are made unique as toc does, by _1, _2, …)."""
    from pymdownx.slugs import slugify
    slug = slugify(case="lower")
    seen: dict[str, int] = {}
    fence = False
    found = None
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        title = re.sub(r"[`*]", "", m[1])
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)
        s = slug(html.unescape(title), "-")
        n = seen.get(s, 0)
        seen[s] = n + 1
        ident = s if n == 0 else f"{s}_{n}"
        if found is None and title.startswith(prefix):
            found = ident, title
    if found is None:
        raise LookupError(f"no heading starting with {prefix!r} in papers/calculus.md")
    return found


def rules_reference(src_uri: str = "reference/rules.md") -> str:
    from pullback_calc.reduction.rules import RULES
    from pullback_calc.reduction.typeset import TYPESET, implementation, rule_html
    calculus = (ROOT / "papers" / "calculus.md").read_text(encoding="utf-8")
    to_calculus = _rel("papers/calculus.md", src_uri)
    labels = [k for k in TYPESET if k in RULES]
    out = ["| label | rule | status |", "|---|---|---|"]
    for k in labels:
        e = TYPESET[k]
        out.append(f"| [`{k}`](#rule-{k}) | {_cell(_text(e.title))} | {e.status} |")
    out.append("")
    for k in labels:
        e = TYPESET[k]
        module, name = implementation(k)
        anchor, heading = _heading_anchor(e.section, calculus)
        out += [f"### ({k}) {_text(e.title)} {{#rule-{k}}}", "",
                f'<div class="pc-rule" markdown="0">{rule_html(k)}</div>', "",
                f'<span class="pc-status pc-{e.kind}">{e.status}</span> '
                f"{_text(e.justification)}", ""]
        if e.paper:
            out += [f"**The paper:** “{_text(e.paper)}”", ""]
        elif e.kind == "extension":
            out += ["**The paper:** not in the paper (an extension of ours).", ""]
        else:
            out += ["**The paper:** no sentence of the paper's prose survives for this "
                    "rule; calculus.md says what our reading rests on.", ""]
        out += [f"**Implemented by** [`{module}.{name}`][{module}.{name}] · "
                f"**stated in full:** [{_text(heading)}]({to_calculus}#{anchor})", ""]
    return "\n".join(out)
