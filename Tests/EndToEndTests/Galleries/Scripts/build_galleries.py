#!/usr/bin/env python3
"""Builds the gallery fixtures of the end-to-end tests into OUT_DIR:

  OUT_DIR/photos/           the photo set (make_photos.py)
  OUT_DIR/sites/NAME/       one static site per gallery, served as-is under /NAME/
  OUT_DIR/truth/NAME.json   what a mirror of that site must hold (see below)
  OUT_DIR/status.json       {NAME: "ok" | "missing: ..." | "failed: ..."} per gallery

Without Pillow only no-image is built (every other gallery is drawn from the photo set, which
Pillow draws); without a generator, its galleries are "missing". The Swift side skips a test
whose tools are missing (GalleryFixtures.tools) and fails one whose gallery failed to build.

Real generators (sigal 3 themes, llgal, lazygal, fgallery, igal2, jigl) write the generated
galleries; the hand-written ones (handwritten.NAMES) are written by handwritten.py. igal2's and
jigl's galleries, and the hand-written ones of issue 45, are made of real photographs
(real_photos.py): the pixel matcher must see photographs.

Ground truth, per gallery, paths relative to the site root ("" is the root directory URL):
  start        the path to start the crawl from
  siteTitle    text the site title must contain
  albums       [{path, title}] the pages that are the `album` of some photo, in breadth-first order
  photos       [{id, title?, album, largest, renditions, optional}] every photo the site shows:
               renditions = every rendition URL the site links (largest included), optional = further
               renditions a mirror may publish (tied to the photo when it does)
  extras       images that are not photos of the set but may be published (album collages)
  decorations  images that must never be published (icons, spinners, theme images)
  unreachable  photos of the set that no page of the site links (generator behaviour), for the record
Usage: build_galleries.py OUT_DIR [NAME...]
"""
import json
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_photos  # noqa: E402
import handwritten  # noqa: E402
import real_photos  # noqa: E402

SITE_TITLE = "Test Photo Gallery"
GENERATED = ["sigal-colorbox", "sigal-photoswipe", "sigal-galleria", "llgal", "lazygal", "fgallery", "igal2", "igal2-slides",
             "jigl"]


def photo_list():
    """[(album path, album title, stem, title or None, landscape)] in make_photos order."""
    return [(album, title, stem, photo_title, landscape)
            for album, title, photos in make_photos.ALBUMS for stem, photo_title, landscape in photos]


def albums():
    return [(album, title) for album, title, _ in make_photos.ALBUMS]


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {result.returncode}: {result.stderr.strip()[-400:]}")


def copy_photos(photos, destination):
    shutil.copytree(photos, destination, ignore=shutil.ignore_patterns("photos.json"))


# --- sigal -------------------------------------------------------------------------------------

def build_sigal(theme, photos, work, site):
    source = os.path.join(work, "sigal-source")
    if not os.path.isdir(source):
        copy_photos(photos, source)
        for album, title in albums():
            with open(os.path.join(source, album, "index.md"), "w") as f:
                f.write(f"Title: {title}\n\nPhotos of {title.lower()}.\n")
        for album, _, stem, title, _ in photo_list():
            if title:
                with open(os.path.join(source, album, stem + ".md"), "w") as f:
                    f.write(f"Title: {title}\n\nA photo called {title}.\n")
    config = os.path.join(work, f"sigal-{theme}.conf.py")
    with open(config, "w") as f:
        f.write(f"source = {source!r}\ndestination = {site!r}\ntheme = {theme!r}\n"
                f"title = {SITE_TITLE!r}\nkeep_orig = True\nimg_size = (800, 600)\nthumb_size = (280, 210)\n")
    run(["sigal", "build", "-c", config])
    return sigal_truth(theme)


def sigal_truth(theme):
    # sigal's album cover: the first landscape photo of the album, by file name.
    covers = {}
    for album, _ in albums():
        landscape = sorted(stem for a, _, stem, _, wide in photo_list() if a == album and wide)
        covers[album] = landscape[0]
    # colorbox renders an album that has sub-albums with a template that lists only the sub-albums.
    listed = {album for album, _ in albums()} - ({"science"} if theme == "colorbox" else set())
    truth_photos, unreachable, extras = [], [], []
    for album, _, stem, title, _ in photo_list():
        renditions = [f"{album}/thumbnails/{stem}.jpg"]
        if album in listed:
            renditions += [f"{album}/{stem}.jpg", f"{album}/original/{stem}.jpg"]
        elif covers[album] != stem:
            unreachable.append(f"{album}/{stem}.jpg")
            continue
        else:
            # Shown only as the cover of an album that lists no photo: the album's picture,
            # not a photo (SPEC).
            extras.append(renditions[0])
            continue
        # A cover on the page above its album is the album's picture: the photo belongs to the
        # album, where it is listed.
        truth_photos.append({"id": f"{album}/{stem}", **({"title": title} if title else {}), "album": album + "/",
                             "largest": renditions[-1], "renditions": renditions, "optional": []})
    album_titles = dict(albums())
    # Breadth-first: the root, then nature/, people/, science/ (link order), then science/space/.
    order = ["", "nature/", "people/", "science/", "science/space/"]
    used = {p["album"] for p in truth_photos}
    return {
        "start": "", "siteTitle": SITE_TITLE,
        "albums": [{"path": p, "title": album_titles.get(p.rstrip("/"), SITE_TITLE)} for p in order if p in used],
        "photos": truth_photos, "extras": extras,
        "decorations": ["static/img/fullscreen.png"] if theme == "galleria" else [],
        "unreachable": unreachable,
    }


# --- llgal -------------------------------------------------------------------------------------

def build_llgal(photos, work, site):
    os.rmdir(site)  # llgal works in place: the site starts as a copy of the photos
    copy_photos(photos, site)

    def captions(directory, lines):
        os.makedirs(os.path.join(directory, ".llgal"), exist_ok=True)
        with open(os.path.join(directory, ".llgal", "captions"), "w") as f:
            f.write("\n".join(lines) + "\n")

    titles = dict(albums())
    captions(site, [f"TITLE: {SITE_TITLE}"] + [f"DIR: {a} ---- {titles[a]} ---- {titles[a]}"
                                                 for a in ("nature", "science", "people")])
    for album, title in albums():
        lines = [f"TITLE: {title}"]
        if album == "science":
            lines.append("DIR: space ---- Deep Space ---- Deep Space")
        lines += [f"IMG: {stem}.jpg ---- {t or ''}" for a, _, stem, t, _ in photo_list() if a == album]
        captions(os.path.join(site, album), lines)
    run(["llgal", "-R", "--parent-gal", "--sx", "800", "--sy", "600"], cwd=site)
    truth_photos = [{
        "id": f"{album}/{stem}", **({"title": t} if t else {}), "album": f"{album}/index.html",
        "largest": f"{album}/{stem}.jpg",
        "renditions": [f"{album}/.llgal/thumb_{stem}.jpg", f"{album}/.llgal/scaled_{stem}.jpg", f"{album}/{stem}.jpg"],
        "optional": []} for album, _, stem, t, _ in photo_list()]
    # Root slides link nature, science, people in that order; space hangs two levels below science.
    order = ["nature", "science", "people", "science/space"]
    titles = dict(albums())
    return {"start": "", "siteTitle": SITE_TITLE,
            "albums": [{"path": f"{a}/index.html", "title": titles[a]} for a in order],
            "photos": truth_photos, "extras": [], "decorations": [], "unreachable": []}


# --- lazygal -----------------------------------------------------------------------------------

def build_lazygal(photos, work, site):
    source = os.path.join(work, "lazygal-source")
    copy_photos(photos, source)
    with open(os.path.join(source, "album-name"), "w") as f:
        f.write(SITE_TITLE + "\n")
    for album, title in albums():
        with open(os.path.join(source, album, "album-name"), "w") as f:
            f.write(title + "\n")
    for album, _, stem, title, _ in photo_list():
        if title:
            with open(os.path.join(source, album, stem + ".jpg.comment"), "w") as f:
                f.write(title + "\n")
    run(["lazygal", "--quiet", "-o", site, "-s", "small=800x600", "-T", "150x113", "-O", source])
    truth_photos = [{
        "id": f"{album}/{stem}", **({"title": t} if t else {}), "album": f"{album}/index.html",
        "largest": f"{album}/{stem}.jpg",
        "renditions": [f"{album}/{stem}_thumb.jpg", f"{album}/{stem}_small.jpg", f"{album}/{stem}.jpg"],
        "optional": []} for album, _, stem, t, _ in photo_list()]
    # lazygal sorts sub-galleries by directory name.
    order = ["nature", "people", "science", "science/space"]
    titles = dict(albums())
    return {"start": "", "siteTitle": SITE_TITLE,
            "albums": [{"path": f"{a}/index.html", "title": titles[a]} for a in order],
            "photos": truth_photos, "extras": [f"{a}/index.png" for a, _ in albums()],
            "decorations": ["shared/video_arrow.svg"], "unreachable": []}


# --- fgallery ----------------------------------------------------------------------------------

def build_fgallery(photos, work, site):
    source = os.path.join(work, "fgallery-source")
    os.makedirs(source)
    for album, _, stem, title, _ in photo_list():
        shutil.copy(os.path.join(photos, album, stem + ".jpg"), source)
        if title:
            with open(os.path.join(source, stem + ".txt"), "w") as f:
                f.write(f"{title}\nA photo called {title}.\n")
    os.rmdir(site)  # fgallery refuses an existing output directory
    run(["fgallery", "-i", "-d", "-k", "-t", "-j", "2", "-c", "txt", "--max-full", "1024x768",
         source, site, SITE_TITLE])
    truth_photos = [{
        "id": f"{album}/{stem}", **({"title": t} if t else {}), "album": "",
        "largest": f"files/{stem}.jpg",
        "renditions": [f"thumbs/{stem}.jpg", f"imgs/{stem}.jpg", f"files/{stem}.jpg"],
        "optional": [f"blurs/{stem}.jpg"]} for album, _, stem, t, _ in photo_list()]
    icons = ["back.png", "eye.png", "download.png", "left.png", "right.png", "cap-normal.png", "cap-always.png",
             "cap-never.png", "cut-left.png", "cut-right.png", "cut-top.png", "cut-mov.png", "noise.png", "throbber.gif"]
    return {"start": "", "siteTitle": SITE_TITLE, "albums": [{"path": "", "title": SITE_TITLE}],
            "photos": truth_photos, "extras": [], "decorations": icons, "unreachable": []}


# --- igal2 and jigl: real photographs, and a script on each photo page preloads the next photo ------
#
# Issue 45: on these two generators' photo pages an inline script preloads the NEXT photo's slide
# (`Image1 = new Image(); Image1.src = ".slide_garden.jpg";` in igal2's <head>, and the same in
# jigl's, under "Preload the next image here"), and the tool chained every photo into one. Each
# photo is its own: thumbnail (index page), slide (its photo page) and original (the slide's link).

def copy_real_photos(folder, longest=1024):
    """Downscaled copies of the real photographs into `folder`, as STEM.jpg."""
    os.makedirs(folder, exist_ok=True)
    for stem, _, _ in real_photos.PHOTOS:
        real_photos.save(real_photos.load(stem, longest), os.path.join(folder, stem + ".jpg"))


def real_photo_truth(largest, renditions, album=""):
    return [{"id": f"real/{stem}", **({"title": c} if c else {}), "album": album, "largest": largest(stem),
             "renditions": renditions(stem), "optional": []} for stem, _, c in real_photos.PHOTOS]


def build_igal2(photos, work, site, slides=False):
    if real_photos.missing():
        raise RuntimeError(f"real photographs missing (mate-backgrounds, lomiri-wallpapers-16.04): {real_photos.missing()[:3]}")
    copy_real_photos(site)  # igal2 works in place
    # Captions in .captions (what `igal2 -c` asks the user to fill in), in the order of the slides.
    with open(os.path.join(site, ".captions"), "w") as f:
        f.write("# igal2 captions: file ---- caption\n\n")
        f.write("".join(f"{stem}.jpg ---- {c or ''}\n" for stem, _, c in real_photos.PHOTOS))
    # The index page's title, set as igal2's manual says: in the local copy of its index template.
    with open("/usr/share/igal2/indextemplate2.html") as f:
        template = f.read().replace("Index of Pictures", SITE_TITLE)
    with open(os.path.join(site, ".indextemplate2.html"), "w") as f:
        f.write(template)
    home = os.path.join(work, "igal2-home")  # no user template of ~/.igal2 takes part
    os.makedirs(home, exist_ok=True)
    if slides:
        run(["igal2", "-c", "-n", "--bigy", "450", "-d", site], env={**os.environ, "HOME": home})
        renditions = lambda s: [f".thumb_{s}.jpg", f".slide_{s}.jpg", f"{s}.jpg"]  # noqa: E731
    else:
        run(["igal2", "-c", "-d", site], env={**os.environ, "HOME": home})
        renditions = lambda s: [f".thumb_{s}.jpg", f"{s}.jpg"]  # noqa: E731
    # The index (the start page) shows .thumb_STEM.jpg (75 px high, the caption as alt) linking to
    # the photo's page, the caption in the paragraph after the photo's table
    # ("Caption&nbsp;&nbsp;&nbsp;(2/25)"), the next photo preloaded in <head>. With igal2's
    # defaults (igal2) the page is N.html, shows STEM.jpg itself and preloads the next STEM.jpg:
    # the gallery of issue 45, whose 25 photos the tool chained into one. With --bigy 450 -n
    # (igal2-slides) it is STEM.html, shows .slide_STEM.jpg (450 px high) linking to STEM.jpg and
    # preloads the next slide. The film reel (.tile.png) is a CSS background.
    return {"start": "", "siteTitle": SITE_TITLE, "albums": [{"path": "", "title": SITE_TITLE}],
            "photos": real_photo_truth(lambda s: f"{s}.jpg", renditions),
            "extras": [], "decorations": [".tile.png"], "unreachable": []}


def build_jigl(photos, work, site):
    if real_photos.missing():
        raise RuntimeError(f"real photographs missing (mate-backgrounds, lomiri-wallpapers-16.04): {real_photos.missing()[:3]}")
    copy_real_photos(site)  # with --link-original jigl writes its pages beside the originals
    home = os.path.join(work, "jigl-home")  # jigl keeps its default theme in ~/.jigl
    os.makedirs(home, exist_ok=True)
    env = {**os.environ, "HOME": home}
    run(["jigl", "-rs", "n", "-cg", site], env=env)  # writes gallery.dat, which the user fills in
    data = os.path.join(site, "gallery.dat")
    with open(data) as f:
        head = [line for line in f.read().splitlines() if not line.endswith(".jpg ---- ")]
    head = [line.replace("My Pictures", SITE_TITLE) for line in head]
    with open(data, "w") as f:
        f.write("\n".join(head + [f"{stem}.jpg ---- {c or ''}" for stem, _, c in real_photos.PHOTOS]) + "\n")
    run(["jigl", "-rs", "n", "--link-original", site], env=env)
    # index.html shows thumbs/thumb_STEM.jpg (75 px high, no alt) linking to N.html, which shows
    # slides/slide_STEM.jpg (480 px high) linking to STEM.jpg, the caption in the table cell below
    # ("Caption<br>(2/25)"), and preloads the next slide in <head>; N_info.html shows the slide again.
    return {"start": "", "siteTitle": SITE_TITLE, "albums": [{"path": "", "title": SITE_TITLE}],
            "photos": real_photo_truth(lambda s: f"{s}.jpg",
                                       lambda s: [f"thumbs/thumb_{s}.jpg", f"slides/slide_{s}.jpg", f"{s}.jpg"]),
            "extras": [], "decorations": [], "unreachable": []}


BUILDERS = {
    "sigal-colorbox": ("sigal", lambda p, w, s: build_sigal("colorbox", p, w, s)),
    "sigal-photoswipe": ("sigal", lambda p, w, s: build_sigal("photoswipe", p, w, s)),
    "sigal-galleria": ("sigal", lambda p, w, s: build_sigal("galleria", p, w, s)),
    "llgal": ("llgal", build_llgal),
    "lazygal": ("lazygal", build_lazygal),
    "fgallery": ("fgallery", build_fgallery),
    "igal2": ("igal2", build_igal2),
    "igal2-slides": ("igal2", lambda p, w, s: build_igal2(p, w, s, slides=True)),
    "jigl": ("jigl", build_jigl),
}


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or GENERATED + handwritten.NAMES
    photos = os.path.join(out, "photos")
    work = os.path.join(out, "work")
    for directory in (out, os.path.join(out, "sites"), os.path.join(out, "truth"), work):
        os.makedirs(directory, exist_ok=True)
    pillow = make_photos.Image is not None
    if pillow and not os.path.exists(os.path.join(photos, "photos.json")):
        run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "make_photos.py"), photos])
    status = {}
    for name in names:
        site = os.path.join(out, "sites", name)
        shutil.rmtree(site, ignore_errors=True)
        os.makedirs(site)
        try:
            if not pillow and name != "no-image":
                status[name] = "missing: Pillow is not installed for this python3 (python3 -m pip install Pillow)"
                continue
            if name in BUILDERS:
                tool, build = BUILDERS[name]
                if shutil.which(tool) is None:
                    status[name] = f"missing: {tool} is not installed (.ci/run installs it)"
                    continue
                truth = build(photos, work, site)
            else:
                truth = handwritten.build(name, photos, site)
            truth["name"] = name
            with open(os.path.join(out, "truth", name + ".json"), "w") as f:
                json.dump(truth, f, indent=1)
            status[name] = "ok"
        except Exception as error:  # reported to the Swift side, which fails the test naming it
            status[name] = f"failed: {error}"
    with open(os.path.join(out, "status.json"), "w") as f:
        json.dump(status, f, indent=1)


if __name__ == "__main__":
    main()
