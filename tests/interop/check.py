"""Reads Assay's exports with the tools people use, and says what differs.

Run by crates/assay-cli/tests/interop.rs inside target/interop-venv. Each subcommand exits
non-zero with a message naming the first difference; nothing here trusts Assay's own readers.
"""
import json
import math
import os
import sys
import tempfile


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def hf(folder, parquet, expected_path):
    """load_dataset(folder) is a DatasetDict of original/refined with PIL images and the text
    exactly as expected; load_dataset("parquet") of the single-file export decodes images too."""
    import datasets
    from PIL import Image

    expected = json.load(open(expected_path, encoding="utf-8"))
    dd = datasets.load_dataset(folder)
    if not isinstance(dd, datasets.DatasetDict):
        fail(f"load_dataset({folder}) gave {type(dd).__name__}, not a DatasetDict")
    if sorted(dd.keys()) != ["original", "refined"]:
        fail(f"splits are {sorted(dd.keys())}")
    for split, rows in expected.items():
        ds = dd[split]
        if len(ds) != len(rows):
            fail(f"{split}: {len(ds)} rows, expected {len(rows)}")
        ops = ds.features["operation"]
        if not isinstance(ops, datasets.ClassLabel):
            fail(f"operation is {ops!r}, not a ClassLabel")
        for got, want in zip(ds, rows):
            for key in ["id", "question", "answer", "options", "category"]:
                if got[key] != want[key]:
                    fail(f"{split} {want['id']}: {key} is {got[key]!r}, expected {want[key]!r}")
            op = None if got["operation"] is None else ops.int2str(got["operation"])
            if op != want["operation"]:
                fail(f"{split} {want['id']}: operation {op!r}, expected {want['operation']!r}")
            if len(got["images"]) != len(want["images"]):
                fail(f"{split} {want['id']}: {len(got['images'])} images, expected {len(want['images'])}")
            for img, (w, h) in zip(got["images"], want["images"]):
                if not isinstance(img, Image.Image):
                    fail(f"{split} {want['id']}: image is {type(img).__name__}, not a PIL image")
                if img.size != (w, h):
                    fail(f"{split} {want['id']}: image is {img.size}, expected {(w, h)}")
    flat = datasets.load_dataset("parquet", data_files=parquet)["train"]
    if len(flat) != len(expected["refined"]):
        fail(f"parquet export has {len(flat)} rows, expected {len(expected['refined'])}")
    for row in flat:
        for img in row["images"]:
            if not isinstance(img, Image.Image):
                fail(f"parquet {row['id']}: image is {type(img).__name__}, not a PIL image")
    print(f"hf: {sum(len(r) for r in expected.values())} rows read back")


def coco_eval_against_itself(path):
    """pycocotools loads the file, and COCOeval of its own boxes as detections gives AP 1."""
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    gt = COCO(path)
    anns = gt.loadAnns(gt.getAnnIds())
    if not anns:
        fail(f"{path}: no annotations")
    dets = [
        {"image_id": a["image_id"], "category_id": a["category_id"], "bbox": a["bbox"], "score": 1.0}
        for a in anns
        if not a.get("iscrowd")
    ]
    dt = gt.loadRes(dets)
    e = COCOeval(gt, dt, "bbox")
    e.evaluate()
    e.accumulate()
    e.summarize()
    if not math.isclose(e.stats[0], 1.0):
        fail(f"{path}: AP of the file against itself is {e.stats[0]}, not 1")
    names = sorted(c["name"] for c in gt.loadCats(gt.getCatIds()))
    print(f"coco: {len(anns)} boxes, AP 1.0, categories {names}")
    return gt


def boxes_by_image(coco):
    """Each image's boxes as sorted (category name, x, y, w, h), images in id order."""
    cats = {c["id"]: c["name"] for c in coco["categories"]}
    out = {}
    for img in sorted(coco["images"], key=lambda i: i["id"]):
        out[img["id"]] = []
    for a in coco["annotations"]:
        out[a["image_id"]].append((cats[a["category_id"]], *a["bbox"]))
    return [sorted(v) for v in out.values()]


def same_boxes(label, got, want):
    if len(got) != len(want):
        fail(f"{label}: {len(got)} images, expected {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if len(g) != len(w):
            fail(f"{label}: image {i} has {len(g)} boxes, expected {len(w)}: {g} vs {w}")
        for a, b in zip(g, w):
            if a[0] != b[0] or any(not math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-6) for x, y in zip(a[1:], b[1:])):
                fail(f"{label}: image {i}: box {a} differs from {b}")


def converted(ls_json, config):
    """Label Studio's own converter turns the tasks into COCO."""
    from label_studio_sdk.converter import Converter

    out = tempfile.mkdtemp()
    c = Converter(config=open(config).read(), project_dir=os.path.dirname(ls_json), download_resources=False)
    c.convert_to_coco(ls_json, out, is_dir=False)
    return json.load(open(os.path.join(out, "result.json")))


def label_studio(ls_json, config, coco_path):
    """The converter reads Assay's Label Studio export into the same boxes as Assay's COCO."""
    got = boxes_by_image(converted(ls_json, config))
    want = boxes_by_image(json.load(open(coco_path)))
    same_boxes(f"{ls_json} through the converter vs {coco_path}", got, want)
    print(f"label-studio: {sum(map(len, got))} boxes on {len(got)} images match Assay's COCO")


def label_studio_fixture(ls_json, config, coco_path):
    """Label Studio's own export, converted by its converter, has the boxes Assay imported
    from it (Assay's COCO export after `assay boxes import`)."""
    got = boxes_by_image(json.load(open(coco_path)))
    conv = converted(ls_json, config)
    # The converter writes one image per annotation, the latest first; Assay reads a task's
    # latest annotation, so the first image of each task's file is the one to compare.
    first = {}
    for img in sorted(conv["images"], key=lambda i: i["id"]):
        first.setdefault(img["file_name"], img["id"])
    keep = set(first.values())
    conv["images"] = [i for i in conv["images"] if i["id"] in keep]
    conv["annotations"] = [a for a in conv["annotations"] if a["image_id"] in keep]
    want = boxes_by_image(conv)
    same_boxes(f"Assay's import of {ls_json} vs the converter", got, want)
    print(f"label-studio fixture: {sum(map(len, got))} boxes agree with the converter")


def make_images(folder, *specs):
    """Writes solid PNGs: NAME:WxH."""
    from PIL import Image

    os.makedirs(folder, exist_ok=True)
    for i, spec in enumerate(specs):
        name, size = spec.split(":")
        w, h = map(int, size.split("x"))
        Image.new("RGB", (w, h), (40 + i, 120, 200)).save(os.path.join(folder, name))


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {
        "hf": hf,
        "coco": coco_eval_against_itself,
        "label-studio": label_studio,
        "label-studio-fixture": label_studio_fixture,
        "make-images": make_images,
    }[cmd](*args)
