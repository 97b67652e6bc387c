#!/usr/bin/env python3
"""Writes the pixel matcher's fixtures (issue 45, "a photo is its pixels"): from six real
photographs of Debian's wallpaper packages (mate-backgrounds, lomiri-wallpapers-16.04), each
downscaled to 480 px on its longest side, the renditions a gallery makes of a photo (resized,
re-encoded, centre square crop, "smart" anchored crop, zoomed off-centre crop), and pairs.json,
which lists every true pair and the pairs of different photos. README.md describes each file.

Run from anywhere: python3 make.py (needs Pillow with WebP, and both packages:
apt-get install mate-backgrounds lomiri-wallpapers-16.04). The outputs are committed; the tests
read them only. Same Pillow version, same bytes.
"""
import itertools
import json
import pathlib

from PIL import Image, ImageEnhance

here = pathlib.Path(__file__).resolve().parent
MATE = "/usr/share/backgrounds/mate/nature"
LOMIRI = "/usr/share/backgrounds"

# (name, source file, what it is, how it is changed before anything else, crop anchor of -smart)
SOURCES = [
    ("ladybird", f"{MATE}/LadyBird.jpg", "a ladybird among forget-me-nots, sharp detail on soft green", None, "left"),
    ("picos", f"{LOMIRI}/picosdeeuropa_by_Aitzol_Berasategi.jpg", "a mountain path under a blue sky, landscape", None,
     "right"),
    ("friends", f"{LOMIRI}/friends_by_Aitzol_Berasategi.jpg", "two dogs at a door, portrait (2:3)", None, "top"),
    ("wood", f"{MATE}/Wood.jpg", "weathered planks: FLAT, very low contrast (luma std ~12)", None, "left"),
    ("blinds", f"{MATE}/Blinds.jpg", "light through a green leaf: smooth, low contrast, one hue", None, "right"),
    ("night", f"{MATE}/Storm.jpg", "storm clouds over a road, exposed down 3 stops: VERY DARK (mean luma ~12)",
     "dark", "left"),
]
QUALITY = 80


def load(path, longest):
    image = Image.open(path)
    image.draft("RGB", (longest, longest))
    image = image.convert("RGB")
    scale = longest / max(image.size)
    return image.resize((round(image.width * scale), round(image.height * scale)), Image.LANCZOS)


def centre_square(image, side):
    edge = min(image.size)
    box = ((image.width - edge) // 2, (image.height - edge) // 2)
    box = (*box, box[0] + edge, box[1] + edge)
    return image.crop(box).resize((side, side), Image.LANCZOS), box


def anchored(image, size, anchor):
    """The largest box of size's aspect against one edge (left, right, top), resized to size."""
    width, height = size
    if image.width * height > image.height * width:
        box_width = image.height * width // height
        left = 0 if anchor in ("left", "top") else image.width - box_width
        box = (left, 0, left + box_width, image.height)
    else:
        box_height = image.width * height // width
        top = 0 if anchor in ("top", "left") else image.height - box_height
        box = (0, top, image.width, top + box_height)
    return image.crop(box).resize(size, Image.LANCZOS), box


def zoomed(image, size, share=0.9, centre=(0.42, 0.46)):
    """90% of the largest box of size's aspect (90% of the height of a landscape photo), centred
    off the middle at `centre`, resized to size."""
    width, height = size
    if image.width * height > image.height * width:
        box_height = round(image.height * share)
        box_width = box_height * width // height
    else:
        box_width = round(image.width * share)
        box_height = box_width * height // width
    left = min(max(0, round(image.width * centre[0] - box_width / 2)), image.width - box_width)
    top = min(max(0, round(image.height * centre[1] - box_height / 2)), image.height - box_height)
    box = (left, top, left + box_width, top + box_height)
    return image.crop(box).resize(size, Image.LANCZOS), box


def save(image, name, fmt="JPEG"):
    image.save(here / name, fmt, quality=QUALITY)
    return {"file": name, "width": image.width, "height": image.height}


def main():
    pairs, files = [], []
    for name, path, what, change, anchor in SOURCES:
        large = load(path, 480)
        if change == "dark":
            large = ImageEnhance.Brightness(large).enhance(0.125)
        files.append({**save(large, f"{name}.jpg"), "source": path, "what": what})
        resized = large.resize((160, round(large.height * 160 / large.width)), Image.LANCZOS)
        small = [(save(resized, f"{name}-resized.jpg"), "resized", None),
                 (save(large, f"{name}-reencoded.webp", "WEBP"), "reencoded", None)]
        square, box = centre_square(large, 150)
        small.append((save(square, f"{name}-square.jpg"), "centre-crop", box))
        smart_size = (200, 150) if large.width >= large.height else (150, 200)
        smart, box = anchored(large, smart_size, anchor)
        small.append((save(smart, f"{name}-smart.jpg"), f"anchored-crop-{anchor}", box))
        zoom, box = zoomed(large, (300, 200))
        small.append((save(zoom, f"{name}-zoom.jpg"), "zoomed-crop", box))
        for entry, kind, box in small:
            pairs.append({"small": entry["file"], "large": f"{name}.jpg", "kind": kind,
                          **({"box": list(box)} if box else {}), "size": [entry["width"], entry["height"]]})
    different = []
    for (a, *_), (b, *_) in itertools.permutations(SOURCES, 2):
        for variant in ("resized", "square", "zoom"):
            different.append({"small": f"{a}-{variant}.jpg", "large": f"{b}.jpg"})
    with open(here / "pairs.json", "w") as f:
        json.dump({
            "about": "True pairs: small is a rendition of large (box: the crop in large's pixels, left, top, right, "
                     "bottom). Different: small is a rendition of another photograph than large. See README.md.",
            "photos": files, "pairs": pairs, "different": different}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
