"""Real photographs for the fixtures where pixels matter (issue 45, "a photo is its pixels"): the
pixel matcher must see photographs, not the drawn gradients of make_photos.py. They come from two
Debian wallpaper packages that .ci/run installs, mate-backgrounds and lomiri-wallpapers-16.04
(the CMS fixtures use the same two), and are downscaled copies, so that the suite stays fast.

PHOTOS lists (stem, source file, caption or None); the captions are the fixtures' own words.
Two wallpapers of the lomiri package are left out: analogpattern and umang are drawn patterns.
"""
import os

try:
    from PIL import Image
except ImportError:  # read without Pillow: build_galleries.py then reports the galleries missing
    Image = None

MATE = "/usr/share/backgrounds/mate/nature"
LOMIRI = "/usr/share/backgrounds"

# (stem, source path, caption or None): 25 photographs, two of them portrait (wine, friends).
PHOTOS = [
    ("aqua", f"{MATE}/Aqua.jpg", "A drop falls into blue water"),
    ("blinds", f"{MATE}/Blinds.jpg", "Light through a green leaf"),
    ("dune", f"{MATE}/Dune.jpg", "Dune grass by the sea"),
    ("fresh-flower", f"{MATE}/FreshFlower.jpg", None),
    ("garden", f"{MATE}/Garden.jpg", "Red marigold in the garden"),
    ("green-meadow", f"{MATE}/GreenMeadow.jpg", None),
    ("ladybird", f"{MATE}/LadyBird.jpg", "A ladybird among forget-me-nots"),
    ("raindrops", f"{MATE}/RainDrops.jpg", "Raindrops on blades of grass"),
    ("storm", f"{MATE}/Storm.jpg", "Storm clouds over the road"),
    ("two-wings", f"{MATE}/TwoWings.jpg", None),
    ("wood", f"{MATE}/Wood.jpg", "Weathered planks"),
    ("yellow-flower", f"{MATE}/YellowFlower.jpg", "Yellow daisy in the dark"),
    ("bridge", f"{LOMIRI}/Bridge_by_Sander_Klootwijk.jpg", "Cables of a bridge against the sky"),
    ("dragonfly", f"{LOMIRI}/Dragonfly_by_Bolly.jpg", None),
    ("fig", f"{LOMIRI}/Picture_0B_by_freespace.jpg", "A fig in a red bowl"),
    ("brushes", f"{LOMIRI}/Picture_1A_by_freespace.jpg", "Paint brushes"),
    ("wine", f"{LOMIRI}/Wine_by_Jakkub_Mede.jpg", "Wine and a drum by the window"),
    ("aitzgorri", f"{LOMIRI}/aitzgorri_by_Aitzol_Berasategi.jpg", "Aitzgorri in autumn"),
    ("bird-lamps", f"{LOMIRI}/free_by_Peter_Nerlich.jpg", None),
    ("friends", f"{LOMIRI}/friends_by_Aitzol_Berasategi.jpg", "Two dogs at the door"),
    ("clock", f"{LOMIRI}/greentock_by_Peter_Nerlich.jpg", None),
    ("stream", f"{LOMIRI}/life_by_Aitzol_Berasategi.jpg", "A stream in the forest"),
    ("picos", f"{LOMIRI}/picosdeeuropa_by_Aitzol_Berasategi.jpg", "Path into the Picos de Europa"),
    ("dandelions", f"{LOMIRI}/seeding_by_Clements_Engelhardt.jpg", "Dandelion clocks at dusk"),
    ("sunset", f"{LOMIRI}/sunset_by_Aitzol_Berasategi.jpg", None),
]

_cache = {}


def missing():
    """The source files that are not installed (empty when both packages are)."""
    return [path for _, path, _ in PHOTOS if not os.path.exists(path)]


def load(stem, longest=1024):
    """The photograph `stem`, downscaled (never enlarged) so that its longest side is `longest`,
    as an RGB Pillow image. Read once per size and process (the sources are up to 5312 px wide)."""
    if (stem, longest) not in _cache:
        path = next(p for s, p, _ in PHOTOS if s == stem)
        image = Image.open(path)
        image.draft("RGB", (longest, longest))  # JPEG's own 1/2, 1/4, 1/8 scaling: fast
        image = image.convert("RGB")
        scale = longest / max(image.size)
        if scale < 1:
            image = image.resize((round(image.width * scale), round(image.height * scale)), Image.LANCZOS)
        _cache[(stem, longest)] = image
    return _cache[(stem, longest)].copy()


def caption(stem):
    return next(c for s, _, c in PHOTOS if s == stem)


def save(image, path, quality=85):
    """Writes `image` as a JPEG (or by the extension), creating its folder."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    if path.endswith(".png"):
        image.save(path, "PNG")
    elif path.endswith(".webp"):
        image.save(path, "WEBP", quality=quality)
    else:
        image.save(path, "JPEG", quality=quality)
