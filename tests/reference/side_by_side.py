"""Runs the seeds' own evaluation functions (../shared/reference, see its README) on inputs a
test sends, so the test can compare Assay's numbers with theirs. Nothing of theirs is copied:
each function is taken from their file as published, with Python's `ast`, and run alone (their
modules import vllm, torch, pandas and more at the top, which the functions do not use).

Usage: python3 side_by_side.py REFERENCE_DIR < request.json > answer.json
request: {"haerae_scores": [text, ...], "haerae_messages": [[question, response, checklist], ...],
          "crag_distance": [[[w, h], [x0, y0, x1, y1]], ...]}
"""
import ast
import contextlib
import json
import os
import sys
import types
import typing


def functions(path, names, extra=None):
    """The named top-level functions of a file, defined in one namespace with `extra`."""
    tree = ast.parse(open(path, encoding="utf-8").read(), filename=path)
    wanted = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names]
    missing = set(names) - {n.name for n in wanted}
    if missing:
        sys.exit(f"{path}: no function {sorted(missing)}")
    ns = {"List": typing.List, "Dict": typing.Dict, "Any": typing.Any, "Optional": typing.Optional}
    ns.update(extra or {})
    exec(compile(ast.Module(body=wanted, type_ignores=[]), path, "exec"), ns)
    return ns


class Frame:
    """The little of a pandas DataFrame that score.py's build_messages uses."""

    def __init__(self, rows):
        self.rows = rows
        self.columns = list(rows[0].keys()) if rows else []

    def iterrows(self):
        return enumerate(self.rows)


def main():
    ref = sys.argv[1]
    req = json.load(sys.stdin)
    out = {}
    haerae = os.path.join(ref, "haerae-vision")
    sys.path.insert(0, haerae)
    import utils.evaluate as hv  # stdlib only: re, fractions

    scores = []
    for text in req.get("haerae_scores", []):
        # As score.py reads a judge reply: any failure of the reading is None.
        try:
            # It prints a reply without a tag to stdout, which carries the answer here.
            with contextlib.redirect_stdout(sys.stderr):
                d = hv.parse_single_score(text)
            scores.append(d["value"] if d else None)
        except Exception:
            scores.append(None)
    out["haerae_scores"] = scores

    ns = functions(os.path.join(haerae, "score.py"), ["build_messages"],
                   {"prompt_template": hv.prompt_template,
                    "pd": types.SimpleNamespace(DataFrame=Frame)})
    rows = [{"q": q, "a": a, "c": c} for q, a, c in req.get("haerae_messages", [])]
    msgs = ns["build_messages"](Frame(rows), "q", "a", "c") if rows else []
    out["haerae_messages"] = [m[0]["content"] for m in msgs]
    out["haerae_roles"] = [[x["role"] for x in m] for m in msgs]

    crag = os.path.join(ref, "crag-mm-diagnostics", "utils", "utils.py")
    ns = functions(crag, ["calculate_distance"])
    out["crag_distance"] = [ns["calculate_distance"](size, box)
                            for size, box in req.get("crag_distance", [])]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
