#!/usr/bin/env python3
"""Writes a deterministic synthetic gallery for the benchmark.

    make_gallery.py DIR N            N images (PNG and JPEG, 6-220 KB, median about 40 KB), paginated
                                     HTML pages (100 images each, rel="next"), feed.rss, images.json
    make_gallery.py DIR N --json-link
                                     the same, the pages advertising images.json beside feed.rss
                                     (<link rel="alternate" type="application/json">): the site, its
                                     feed and its API each list every photo
    make_gallery.py DIR N --mutate   rewrites 1 % of the images (every 100th) with new bytes
    make_gallery.py DIR N --restore  puts the original bytes back
    make_gallery.py DIR N --photos PHOTOS [--json-link | --mutate | --restore]
                                     the same site, its images real photographs instead of noise:
                                     the JPEGs of the folder PHOTOS in turn, each copy made distinct
                                     by a comment segment (COM) naming it, placed after the file's
                                     APPn segments so its EXIF, XMP and IPTC blocks stay as they are

Image bytes are noise, so their size is their compressed size. Same N, same bytes.
"""
import argparse
import io
import json
import math
import pathlib
import random
import shutil

from PIL import Image


def target_sizes(n, rng):
    # Log-normal around 40 KB, clipped to 6-220 KB, like a real catalog's mix.
    return [int(min(220_000, max(6_000, rng.lognormvariate(math.log(40_000), 0.75)))) for _ in range(n)]


def image_bytes(index, size, salt):
    rng = random.Random(index * 7919 + salt)
    if index % 3 == 0:  # JPEG: noise at quality 85 takes about 0.8 bytes a pixel
        pixels = max(64, int(size / 0.8))
        width = 256
        height = max(1, pixels // width)
        image = Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3))
        out = io.BytesIO()
        image.save(out, "JPEG", quality=85)
        return "jpg", out.getvalue()
    pixels = max(64, size // 3 + 64)  # PNG: noise does not compress (3 bytes a pixel)
    width = 256
    height = max(1, pixels // width)
    image = Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3))
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=1)
    return "png", out.getvalue()


def photo_bytes(photos, index, salt):
    """Photo `index % len(photos)` with a COM segment naming `index` and `salt` after its APPn
    segments (the ones that carry EXIF, XMP and IPTC), so every copy's bytes are its own."""
    data = photos[index % len(photos)]
    offset = 2  # after SOI
    while offset + 4 <= len(data) and data[offset] == 0xFF and 0xE0 <= data[offset + 1] <= 0xEF:
        offset += 2 + int.from_bytes(data[offset + 2:offset + 4], "big")
    comment = f"catalog-mirror benchmark photo {index} {salt}".encode()
    segment = b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment
    return "jpg", data[:offset] + segment + data[offset:]


def load_photos(folder):
    photos = [p.read_bytes() for p in sorted(pathlib.Path(folder).iterdir()) if p.suffix.lower() in (".jpg", ".jpeg")]
    if not photos:
        raise SystemExit(f"{folder}: no JPEG photos")
    return photos


def write(root, n, json_link=False, photos=None):
    rng = random.Random(20261121 + n)
    gallery = root / "gallery"
    if gallery.exists():
        shutil.rmtree(gallery)
    (gallery / "img").mkdir(parents=True)
    entries = []
    for index, size in enumerate(target_sizes(n, rng)):
        ext, data = photo_bytes(photos, index, 0) if photos else image_bytes(index, size, 0)
        name = f"{index:05d}.{ext}"
        (gallery / "img" / name).write_bytes(data)
        entries.append({"name": f"Image {index}", "url": f"img/{name}", "price": f"{(index % 50) + 1}.00", "file": name})
    pages = math.ceil(n / 100)
    for page in range(pages):
        chunk = entries[page * 100:(page + 1) * 100]
        head = '<link rel="alternate" type="application/rss+xml" href="feed.rss">'
        if json_link:
            head += '<link rel="alternate" type="application/json" href="images.json">'
        if page + 1 < pages:
            head += f'<link rel="next" href="page-{page + 2}.html">'
        body = "".join(f'<figure><img src="{e["url"]}" alt="{e["name"]}"><figcaption>{e["name"]}</figcaption></figure>' for e in chunk)
        nav = "".join(f'<a href="{"index.html" if p == 0 else f"page-{p + 1}.html"}">{p + 1}</a> ' for p in range(pages))
        nxt = f'<a rel="next" href="page-{page + 2}.html">next</a>' if page + 1 < pages else ""
        html = f"<!DOCTYPE html><html><head><meta charset=utf-8><title>Bench {page + 1}</title>{head}</head><body>{body}<nav>{nav}{nxt}</nav></body></html>"
        (gallery / ("index.html" if page == 0 else f"page-{page + 1}.html")).write_text(html)
    items = "".join(
        f'<item><title>{e["name"]}</title><enclosure url="img/{e["file"]}" type="image/{"jpeg" if e["file"].endswith("jpg") else "png"}"/></item>'
        for e in entries)
    (gallery / "feed.rss").write_text(f'<?xml version="1.0"?><rss version="2.0"><channel><title>Bench</title>{items}</channel></rss>')
    (gallery / "images.json").write_text(json.dumps([{k: e[k] for k in ("name", "url", "price")} for e in entries]))
    (root / "urls.txt").write_text("".join(f'http://127.0.0.1:PORT/gallery/{e["url"]}\n' for e in entries))
    total = sum(p.stat().st_size for p in (gallery / "img").iterdir())
    print(f"{n} images, {total / 1e6:.1f} MB, {pages} pages")


def mutate(root, n, restore, photos=None):
    gallery = root / "gallery" / "img"
    rng = random.Random(20261121 + n)
    for index, size in enumerate(target_sizes(n, rng)):
        if index % 100 != 50:
            continue
        salt = 0 if restore else 1
        ext, data = photo_bytes(photos, index, salt) if photos else image_bytes(index, size, salt)
        (gallery / f"{index:05d}.{ext}").write_bytes(data)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("n", type=int)
    parser.add_argument("--mutate", action="store_true")
    parser.add_argument("--restore", action="store_true")
    parser.add_argument("--json-link", action="store_true", help="the pages also advertise images.json")
    parser.add_argument("--photos", help="a folder of JPEG photographs to copy instead of noise images")
    args = parser.parse_args()
    root = pathlib.Path(args.dir)
    photos = load_photos(args.photos) if args.photos else None
    if args.mutate or args.restore:
        mutate(root, args.n, args.restore, photos)
    else:
        write(root, args.n, args.json_link, photos)
