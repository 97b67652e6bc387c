#!/usr/bin/env python3
"""Writes the photo set of the generated-gallery fixtures: 29 distinct JPEGs in four albums
(one nested), plus photos.json, the set's ground truth (albums, files, sizes, titles).

Deterministic: the same Pillow version writes the same bytes. No EXIF is written.
Usage: make_photos.py OUT_DIR
"""
import json
import os
import sys

try:
    from PIL import Image, ImageDraw
except ImportError:  # ALBUMS is read without Pillow (build_galleries.py then reports it missing)
    Image = ImageDraw = None

# (album path, album title, [(file stem, title or None, landscape?)])
ALBUMS = [
    ("nature", "Nature Walks", [
        ("alpine-lake", "Alpine Lake at Dawn", True),
        ("fern-spiral", None, False),
        ("desert-dunes", "Desert Dunes", True),
        ("autumn-maple", None, True),
        ("waterfall", "Hidden Waterfall", False),
        ("moss-stones", None, True),
        ("sunflower-field", None, True),
        ("pine-forest", "Pine Forest in Fog", False),
    ]),
    ("science", "Science Lab", [
        ("microscope", "Old Brass Microscope", True),
        ("petri-dish", None, False),
        ("circuit-board", None, True),
        ("test-tubes", "Row of Test Tubes", False),
        ("tesla-coil", None, True),
        ("crystal-growth", None, True),
        ("pendulum", "Foucault Pendulum", False),
    ]),
    ("science/space", "Deep Space", [
        ("andromeda", "Andromeda Galaxy", True),
        ("moon-crater", None, True),
        ("saturn-rings", "Rings of Saturn", False),
        ("nebula", None, True),
        ("comet-tail", None, False),
        ("star-cluster", "Open Star Cluster", True),
    ]),
    ("people", "People and Places", [
        ("street-market", "Street Market", True),
        ("fisherman", None, False),
        ("dancers", "Dancers on the Square", True),
        ("chess-players", None, True),
        ("baker", None, False),
        ("cyclist", "Morning Cyclist", True),
        ("violinist", None, False),
        ("old-bridge", None, True),
    ]),
]


def draw_photo(index, landscape):
    """A distinct, photo-like picture: a two-colour gradient with shapes that depend on index."""
    width, height = (1600, 1200) if landscape else (1200, 1600)
    if index % 5 == 4:  # a few other sizes
        width, height = (width * 3 // 4, height * 3 // 4)
    top = ((index * 67) % 256, (index * 131 + 40) % 256, (index * 29 + 90) % 256)
    bottom = ((index * 13 + 120) % 256, (index * 97) % 256, (index * 53 + 10) % 256)
    gradient = Image.linear_gradient("L").resize((width, height))
    image = Image.composite(Image.new("RGB", (width, height), bottom), Image.new("RGB", (width, height), top), gradient)
    draw = ImageDraw.Draw(image)
    for shape in range(6 + index % 5):
        x = (index * 211 + shape * 347) % width
        y = (index * 157 + shape * 263) % height
        radius = 60 + (index * 31 + shape * 47) % 240
        colour = ((shape * 71 + index * 19) % 256, (shape * 23 + index * 83) % 256, (shape * 59 + index * 7) % 256)
        box = [x - radius, y - radius, x + radius, y + radius]
        if shape % 3 == 0:
            draw.ellipse(box, fill=colour)
        elif shape % 3 == 1:
            draw.rectangle(box, fill=colour)
        else:
            draw.polygon([(x, y - radius), (x + radius, y + radius), (x - radius, y + radius)], fill=colour)
    return image


def main():
    out = sys.argv[1]
    truth = {"albums": [], "photos": []}
    index = 0
    for album, title, photos in ALBUMS:
        os.makedirs(os.path.join(out, album), exist_ok=True)
        truth["albums"].append({"path": album, "title": title})
        for stem, photo_title, landscape in photos:
            image = draw_photo(index, landscape)
            path = os.path.join(out, album, stem + ".jpg")
            image.save(path, "JPEG", quality=85)
            truth["photos"].append({
                "album": album, "file": stem + ".jpg", "width": image.width, "height": image.height,
                **({"title": photo_title} if photo_title else {}),
            })
            index += 1
    with open(os.path.join(out, "photos.json"), "w") as f:
        json.dump(truth, f, indent=1)


if __name__ == "__main__":
    main()
