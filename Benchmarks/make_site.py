#!/usr/bin/env python3
"""A static photo site for the site-crawl regime: an index linking to A album pages, each with
P photos shown as a thumbnail inside a link to the original, like a static gallery generator.

    python3 Benchmarks/make_site.py DIR [--albums 1000] [--photos 20]

Writes DIR/site/index.html, DIR/site/albums/NNNN/index.html (previous/next/index links between
albums; the index is linked as `../../`, the start URL's own spelling, so no tool sees it twice),
DIR/site/albums/NNNN/photo-PP.jpg (the original, 240×180, about 5.5 KB) and
DIR/site/albums/NNNN/thumbs/photo-PP.jpg (80×60, about 1.7 KB). Every JPEG is one of a few real
encodings made with Pillow, with a comment segment naming the file inserted after the
start-of-image marker, so each file's bytes are distinct (completeness is counted by content
hash) and still a valid JPEG.
Deterministic; a second call with the same arguments keeps the files already written.
"""
import argparse
import io
import pathlib
import struct

from PIL import Image, ImageDraw

VARIANTS = 4  # distinct encodings per rendition; files cycle through them


def encodings(size, quality):
    """`VARIANTS` real JPEG encodings of a simple drawing at `size`."""
    result = []
    for v in range(VARIANTS):
        image = Image.new("RGB", size, (40 + 50 * v, 90, 160 - 30 * v))
        draw = ImageDraw.Draw(image)
        w, h = size
        for i in range(0, w, max(4, w // 16)):
            draw.line([(i, 0), (w - i, h)], fill=(200, 120 + 20 * v, 60), width=1)
        draw.ellipse([w // 4, h // 4, 3 * w // 4, 3 * h // 4], outline=(255, 255, 255))
        out = io.BytesIO()
        image.save(out, "JPEG", quality=quality)
        result.append(out.getvalue())
    return result


def tagged(jpeg, name):
    """`jpeg` with a COM segment holding `name` right after SOI: distinct bytes, still valid."""
    text = name.encode()
    return jpeg[:2] + b"\xff\xfe" + struct.pack(">H", len(text) + 2) + text + jpeg[2:]


def album_page(a, albums, photos):
    number = f"{a:04d}"
    links = ['<a href="../../">All albums</a>']
    if a > 1:
        links.append(f'<a href="../{a - 1:04d}/index.html" rel="prev">Previous album</a>')
    if a < albums:
        links.append(f'<a href="../{a + 1:04d}/index.html" rel="next">Next album</a>')
    items = "\n".join(
        f'<li><a href="photo-{p:02d}.jpg"><img src="thumbs/photo-{p:02d}.jpg" width="80" height="60" '
        f'alt="Album {number}, photo {p}"></a></li>' for p in range(1, photos + 1))
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Album {number}</title></head>\n'
            f'<body><h1>Album {number}</h1>\n<nav>{" | ".join(links)}</nav>\n<ul class="photos">\n{items}\n</ul>\n'
            f'<nav>{" | ".join(links)}</nav></body></html>\n')


def index_page(albums):
    items = "\n".join(f'<li><a href="albums/{a:04d}/index.html">Album {a:04d}</a></li>' for a in range(1, albums + 1))
    return ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Site benchmark</title></head>\n'
            f'<body><h1>Site benchmark</h1>\n<ul class="albums">\n{items}\n</ul></body></html>\n')


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("directory")
    parser.add_argument("--albums", type=int, default=1000)
    parser.add_argument("--photos", type=int, default=20)
    args = parser.parse_args()
    site = pathlib.Path(args.directory) / "site"
    done = pathlib.Path(args.directory) / f"site-{args.albums}x{args.photos}.complete"
    if done.exists():
        return
    originals = encodings((240, 180), 50)
    thumbs = encodings((80, 60), 60)
    site.mkdir(parents=True, exist_ok=True)
    (site / "index.html").write_text(index_page(args.albums))
    for a in range(1, args.albums + 1):
        album = site / "albums" / f"{a:04d}"
        (album / "thumbs").mkdir(parents=True, exist_ok=True)
        (album / "index.html").write_text(album_page(a, args.albums, args.photos))
        for p in range(1, args.photos + 1):
            name = f"albums/{a:04d}/photo-{p:02d}.jpg"
            (album / f"photo-{p:02d}.jpg").write_bytes(tagged(originals[(a + p) % VARIANTS], name))
            (album / "thumbs" / f"photo-{p:02d}.jpg").write_bytes(
                tagged(thumbs[(a + p) % VARIANTS], f"albums/{a:04d}/thumbs/photo-{p:02d}.jpg"))
    done.touch()


if __name__ == "__main__":
    main()
