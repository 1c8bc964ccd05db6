"""Runs the seeds' own evaluation functions (../shared/reference, see its README) on inputs a
test sends, so the test can compare Assay's numbers with theirs. Nothing of theirs is copied:
each function is taken from their file as published, with Python's `ast`, and run alone (their
modules import vllm, torch, pandas and more at the top, which the functions do not use).

Usage: python3 side_by_side.py REFERENCE_DIR < request.json > answer.json
request: {"haerae_scores": [text, ...], "haerae_messages": [[question, response, checklist], ...],
          "crag_distance": [[[w, h], [x0, y0, x1, y1]], ...],
          "crag_crop": [[[w, h], [x0, y0, x1, y1]], ...],
          "crag_grounding": [{"size": [w, h], "gt": [x0, y0, x1, y1], "reply": text}, ...],
          "crag_judge": [{"task": "whole" | "object_identification" | ..., "query": text,
                          "ground_truth": text, "reply": text, "verdict": bool}, ...]}
The crops need Pillow (tests/reference/requirements.txt, installed by the test).
"""
import ast
import contextlib
import json
import os
import re
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


def methods(path, class_name, names):
    """The named methods of a class in a file, as plain functions taking `self`."""
    tree = ast.parse(open(path, encoding="utf-8").read(), filename=path)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    wanted = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name in names]
    missing = set(names) - {n.name for n in wanted}
    if missing:
        sys.exit(f"{path}: {class_name} has no method {sorted(missing)}")
    # Annotations are evaluated at definition: `Image.Image` needs a name, not Pillow.
    ns = {"List": typing.List, "Dict": typing.Dict, "Any": typing.Any, "re": re,
          "Image": types.SimpleNamespace(Image=object)}
    exec(compile(ast.Module(body=wanted, type_ignores=[]), path, "exec"), ns)
    return {n: ns[n] for n in names}


def crag_judge(ref, cases):
    """`_evaluate_response` of each case's task, the judge's structured reply standing in for the
    API: the messages it sends the judge (None when the exact match decides) and its verdict."""
    m = methods(os.path.join(ref, "crag-mm-diagnostics", "evaluate.py"), "ModularEvaluation",
                ["_parse_response", "_evaluate_response", "get_evaluation_system_prompt"])
    out = []
    for case in cases:
        sent = []

        def api(_client, _model, messages, verdict=case["verdict"]):
            sent.append(messages)
            return types.SimpleNamespace(accuracy=verdict,
                                         model_dump=lambda: {"accuracy": verdict})

        me = types.SimpleNamespace(task_type=case["task"], eval_model_name="judge", openai=None,
                                   attempt_api_call=api)
        me.get_evaluation_system_prompt = types.MethodType(m["get_evaluation_system_prompt"], me)
        with contextlib.redirect_stdout(sys.stderr):
            # Every generated reply is stripped before it is parsed (`.strip()` in both
            # generation paths of evaluate.py).
            pred = m["_parse_response"](me, [case["reply"].strip()], [None])[0]
            r = m["_evaluate_response"](me, {"agent_response": pred, "query": case["query"],
                                             "ground_truth": case["ground_truth"]})
        out.append({"prediction": pred, "messages": sent[0] if sent else None,
                    "is_correct": bool(r["is_correct"])})
    return out


def crag_grounding(ref, cases):
    """A grounding reply as the seed scores it: `_parse_response` of the visual-grounding task
    (the first `[int, int, int, int]`, else the whole 960 x 1280 frame), the reference box
    scaled into that frame, `calculate_iou` and `evaluate_grounding`'s IoU >= 0.5."""
    if not cases:
        return []
    m = methods(os.path.join(ref, "crag-mm-diagnostics", "evaluate.py"), "ModularEvaluation",
                ["_parse_response"])
    ns = functions(os.path.join(ref, "crag-mm-diagnostics", "utils", "utils.py"),
                   ["convert_bbox_to_resized_format", "calculate_iou", "evaluate_grounding"])
    me = types.SimpleNamespace(task_type="visual_grounding")
    frame = types.SimpleNamespace(size=(960, 1280))
    out = []
    for case in cases:
        with contextlib.redirect_stdout(sys.stderr):
            pred = m["_parse_response"](me, [case["reply"]], [frame])[0]
        gt = ns["convert_bbox_to_resized_format"](case["gt"], tuple(case["size"]), (960, 1280))
        out.append({"pred": pred, "iou": ns["calculate_iou"](pred, gt),
                    "hit": bool(ns["evaluate_grounding"](pred, gt, iou_threshold=0.5))})
    return out


def crag_crop(ref, cases):
    """The GT-crop ablation of `data_loader.py`: the box scaled by `convert_bbox_to_resized_format`
    and `image.crop` of the 960 x 1280 frame. The frame's pixels hold their own coordinates, so
    the crop's first pixel says where Pillow cut it: [x, y, width, height] in the frame."""
    if not cases:
        return []
    from PIL import Image
    ns = functions(os.path.join(ref, "crag-mm-diagnostics", "utils", "utils.py"),
                   ["convert_bbox_to_resized_format"])
    w, h = 960, 1280
    frame = Image.frombytes("RGB", (w, h), bytes(
        v for y in range(h) for x in range(w) for v in (x % 256, y % 256, (x // 256) * 16 + y // 256)))
    out = []
    for size, box in cases:
        resized = ns["convert_bbox_to_resized_format"](box, tuple(size), (w, h))
        crop = frame.crop(tuple(map(float, resized)))
        r, g, b = crop.getpixel((0, 0))
        out.append([(b // 16) * 256 + r, (b % 16) * 256 + g, crop.width, crop.height])
    return out


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
    out["crag_crop"] = crag_crop(ref, req.get("crag_crop", []))
    out["crag_grounding"] = crag_grounding(ref, req.get("crag_grounding", []))
    out["crag_judge"] = crag_judge(ref, req.get("crag_judge", []))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
