"""Large data files in every format Assay imports, for the importer's memory benchmark.

    python devtools/scripts/big_formats.py SOURCE.jsonl OUT_DIR [IMAGE_ROWS]

From a JSONL file of items (bench-store's generator writes one): the same items as a JSON
array (`items.json`), a CSV (`items.csv`, nested values as JSON cells) and a Parquet file
(`items.parquet`); and a Parquet file of IMAGE_ROWS rows that each embed an image of their
own (`images.parquet`, a Hugging Face image dataset's shape: {"bytes", "path"}), 96 KB of
noise each so that no two are alike and none compresses. Needs pyarrow.
"""

import json
import os
import struct
import sys
import zlib

import pyarrow as pa
import pyarrow.parquet as pq


def png(seed: int, side: int = 180) -> bytes:
    """A side x side RGB PNG of pseudo-random pixels (a different picture for every seed)."""
    rows = bytearray()
    state = seed * 2654435761 % 2**32 or 1
    for _ in range(side):
        rows.append(0)
        for _ in range(side * 3 // 4):
            state ^= (state << 13) & 0xFFFFFFFF
            state ^= state >> 17
            state ^= (state << 5) & 0xFFFFFFFF
            rows += struct.pack("<I", state)
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    head = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(bytes(rows), 1)) + chunk(b"IEND", b"")


def main() -> None:
    source, out = sys.argv[1], sys.argv[2]
    image_rows = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000
    os.makedirs(out, exist_ok=True)
    items = []
    with open(source, encoding="utf-8") as f, open(os.path.join(out, "items.json"), "w", encoding="utf-8") as js:
        js.write("[\n")
        for i, line in enumerate(f):
            if not line.strip():
                continue
            js.write((",\n" if i else "") + line.strip())
            items.append(json.loads(line))
        js.write("\n]\n")
    keys = sorted({k for it in items for k in it})
    import csv
    with open(os.path.join(out, "items.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(keys)
        for it in items:
            w.writerow([json.dumps(it[k], ensure_ascii=False) if isinstance(it.get(k), (dict, list)) else it.get(k, "") for k in keys])
    pq.write_table(pa.Table.from_pylist(items), os.path.join(out, "items.parquet"), row_group_size=50_000)
    del items
    schema = pa.schema([
        ("id", pa.string()),
        ("question", pa.string()),
        ("answer", pa.string()),
        ("image", pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
    ])
    with pq.ParquetWriter(os.path.join(out, "images.parquet"), schema) as w:
        for start in range(0, image_rows, 500):
            rows = [
                {"id": f"img{i:07d}", "question": f"What is in picture {i}?", "answer": f"noise {i}",
                 "image": {"bytes": png(i), "path": f"img{i:07d}.png"}}
                for i in range(start, min(start + 500, image_rows))
            ]
            w.write_table(pa.Table.from_pylist(rows, schema=schema))


if __name__ == "__main__":
    main()
