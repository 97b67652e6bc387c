"""Hand-written gallery fixtures for markup kinds that the generators do not cover: a WordPress
gallery (srcset + data-orig-file, attachment pages), a Zenphoto gallery (per-photo pages),
lazy loading (data-src/data-srcset + noscript), an inline data array, a JSON data file, and a
site with no image at all. Each writes its site and returns its ground truth (build_galleries.py
describes the format). Pictures are resized copies of the photo set, written with Pillow.
"""
import html
import json
import os

import make_photos

Image = make_photos.Image  # Pillow's, or None without it (then only no-image is built)

NAMES = ["wordpress", "zenphoto", "lazyload", "inline-data", "json-data", "no-image"]
EMOJI_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36"><circle cx="18" cy="18" r="18" fill="#fc3"/></svg>'
BLANK_GIF = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"


def photos_of(album):
    """[(stem, title or stem's words)] of one album of the set."""
    for name, _, photos in make_photos.ALBUMS:
        if name == album:
            return [(stem, title or stem.replace("-", " ").capitalize()) for stem, title, _ in photos]
    raise KeyError(album)


def source(photos, album, stem):
    return os.path.join(photos, album, stem + ".jpg")


def write_resized(photos, album, stem, site, path, width):
    """Writes the photo at `width` pixels wide (the original when width is None); returns its size."""
    image = Image.open(source(photos, album, stem))
    if width is not None:
        image = image.resize((width, round(image.height * width / image.width)))
    target = os.path.join(site, path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    image.save(target, "JPEG", quality=85)
    return image.size


def write(site, path, text):
    target = os.path.join(site, path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w") as f:
        f.write(text)


def page(title, body, head=""):
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{html.escape(title)}</title>\n'
            f"{head}</head>\n<body>\n{body}\n</body>\n</html>\n")


def photo(pid, album, largest, renditions, title=None, optional=()):
    return {"id": pid, **({"title": title} if title else {}), "album": album, "largest": largest,
            "renditions": renditions, "optional": list(optional)}


# --- WordPress: a blog home linking two gallery posts --------------------------------------------

def wordpress(photos, site):
    truth_photos = []
    posts = [("2026/11/walks-in-nature/", "Walks in Nature", "nature"), ("2026/11/people-we-met/", "People We Met", "people")]
    for post, post_title, album in posts:
        figures = []
        for index, (stem, title) in enumerate(photos_of(album)[:4]):
            base = f"wp-content/uploads/2026/11/{stem}"
            full = write_resized(photos, album, stem, site, base + ".jpg", None)
            sizes = {}
            for width in (300, 768, 1024):
                sizes[width] = write_resized(photos, album, stem, site, f"{base}-{width}x{round(full[1] * width / full[0])}.jpg", width)
            name = {w: f"{base}-{w}x{h}.jpg" for w, (_, h) in sizes.items()}
            srcset = ", ".join([f"/{name[w]} {w}w" for w in (300, 768, 1024)] + [f"/{base}.jpg {full[0]}w"])
            attachment = f"{post}attachment/{stem}/"
            link = f"/{attachment}" if index % 2 == 0 else f"/{base}.jpg"
            figures.append(
                f'<figure class="wp-block-image size-medium"><a href="{link}">'
                f'<img decoding="async" width="300" height="{sizes[300][1]}" src="/{name[300]}" class="wp-image-{100 + index}" '
                f'alt="" srcset="{srcset}" sizes="(max-width: 300px) 100vw, 300px" '
                f'data-orig-file="/{base}.jpg" data-orig-size="{full[0]},{full[1]}" data-image-title="{html.escape(title)}" '
                f'data-medium-file="/{name[300]}" data-large-file="/{name[1024]}" /></a>'
                f"<figcaption class=\"wp-element-caption\">{html.escape(title)}</figcaption></figure>")
            if index % 2 == 0:
                write(site, attachment + "index.html", page(
                    f"{title} – Field Notes",
                    f'<article class="attachment"><h1 class="entry-title">{html.escape(title)}</h1>'
                    f'<p class="attachment"><a href="/{base}.jpg"><img width="1024" height="{sizes[1024][1]}" '
                    f'src="/{name[1024]}" class="attachment-large size-large" alt="" /></a></p>'
                    f'<a href="/{post}" rel="gallery">Back to {html.escape(post_title)}</a></article>'))
            truth_photos.append(photo(f"{album}/{stem}", post, f"{base}.jpg",
                                      [f"{name[300]}", f"{name[768]}", f"{name[1024]}", f"{base}.jpg"], title))
        write(site, post + "index.html", page(
            f"{post_title} – Field Notes",
            f'<header><a href="/"><img class="custom-logo" src="/wp-content/themes/notes/logo.svg" alt="Field Notes"></a></header>'
            f'<article><h1 class="entry-title">{html.escape(post_title)}</h1>'
            f'<p>What we saw <img draggable="false" role="img" class="emoji" alt="😀" '
            f'src="/wp-includes/images/core/emoji/15.0.3/svg/1f600.svg"></p>'
            f'<figure class="wp-block-gallery has-nested-images columns-2">{"".join(figures)}</figure></article>'))
    write(site, "wp-content/themes/notes/logo.svg", EMOJI_SVG)
    write(site, "wp-includes/images/core/emoji/15.0.3/svg/1f600.svg", EMOJI_SVG)
    write(site, "index.html", page("Field Notes", "<h1>Field Notes</h1><ul>" + "".join(
        f'<li><a href="/{post}">{html.escape(title)}</a></li>' for post, title, _ in posts) + "</ul>"))
    return {"start": "", "siteTitle": "Field Notes",
            "albums": [{"path": post, "title": title} for post, title, _ in posts], "photos": truth_photos,
            "extras": [], "decorations": ["wp-content/themes/notes/logo.svg", "wp-includes/images/core/emoji/15.0.3/svg/1f600.svg"],
            "unreachable": []}


# --- Zenphoto: album pages with thumbnails linking to per-photo pages --------------------------

def zenphoto(photos, site):
    truth_photos, albums = [], []
    for album, album_title in (("science", "Science Lab"), ("science/space", "Deep Space")):
        thumbs = []
        for stem, title in photos_of(album)[:4]:
            write_resized(photos, album, stem, site, f"albums/{album}/{stem}.jpg", None)
            write_resized(photos, album, stem, site, f"cache/{album}/{stem}_595.jpg", 595)
            write_resized(photos, album, stem, site, f"cache/{album}/{stem}_100_cw85_ch85.jpg", 100)
            thumbs.append(
                f'<div class="image"><div class="imagethumb"><a href="/{album}/{stem}.jpg.html" title="{html.escape(title)}">'
                f'<img src="/cache/{album}/{stem}_100_cw85_ch85.jpg" alt="{html.escape(title)}" width="85" height="85" /></a></div></div>')
            write(site, f"{album}/{stem}.jpg.html", page(
                f"{title} | {album_title} | Zenphoto Demo",
                f'<div id="image"><a href="/albums/{album}/{stem}.jpg" title="{html.escape(title)}">'
                f'<img src="/cache/{album}/{stem}_595.jpg" alt="{html.escape(title)}" width="595" /></a></div>'
                f'<div id="narrow"><h3>{html.escape(title)}</h3></div>'
                f'<a class="prev" href="/{album}/"><img src="/themes/basic/images/arrow_left.png" alt="back"></a>'))
            truth_photos.append(photo(f"{album}/{stem}", f"{album}/", f"albums/{album}/{stem}.jpg",
                                      [f"cache/{album}/{stem}_100_cw85_ch85.jpg", f"cache/{album}/{stem}_595.jpg",
                                       f"albums/{album}/{stem}.jpg"], title))
        sub = '<div class="album"><a href="/science/space/">Deep Space</a></div>' if album == "science" else ""
        write(site, f"{album}/index.html", page(
            f"{album_title} | Zenphoto Demo",
            f'<h2><a href="/">Zenphoto Demo</a> | {html.escape(album_title)}</h2>{sub}<div id="images">{"".join(thumbs)}</div>'
            f'<img src="/themes/basic/images/loading.gif" class="spinner" alt="">'))
        albums.append({"path": f"{album}/", "title": album_title})
    write(site, "index.html", page("Zenphoto Demo", '<h1>Zenphoto Demo</h1><div id="albums"><div class="album">'
                                   '<a href="/science/" title="View album: Science Lab">Science Lab</a></div></div>'))
    for icon in ("themes/basic/images/arrow_left.png", "themes/basic/images/loading.gif"):
        target = os.path.join(site, icon)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        Image.new("RGB", (16, 16), (200, 200, 200)).save(target, "PNG" if icon.endswith("png") else "GIF")
    return {"start": "", "siteTitle": "Zenphoto Demo", "albums": albums, "photos": truth_photos, "extras": [],
            "decorations": ["themes/basic/images/arrow_left.png", "themes/basic/images/loading.gif"], "unreachable": []}


# --- lazy loading: data-src / data-srcset with a noscript twin ---------------------------------

def lazyload(photos, site):
    truth_photos, items = [], []
    for stem, title in photos_of("people")[:5]:
        paths = {}
        for width in (400, 800, None):
            path = f"media/{stem}-{width or 'full'}.jpg"
            size = write_resized(photos, "people", stem, site, path, width)
            paths[width] = (path, size[0])
        srcset = ", ".join(f"{p} {w}w" for p, w in paths.values())
        items.append(
            f'<div class="photo"><img src="{BLANK_GIF}" data-src="{paths[800][0]}" data-srcset="{srcset}" '
            f'data-sizes="auto" class="lazyload" alt="{html.escape(title)}" title="{html.escape(title)}">'
            f'<noscript><img src="{paths[800][0]}" alt="{html.escape(title)}"></noscript></div>')
        truth_photos.append(photo(f"people/{stem}", "", paths[None][0], [paths[400][0], paths[800][0], paths[None][0]], title))
    write(site, "index.html", page("Lazy Portraits", "<h1>Lazy Portraits</h1>" + "".join(items),
                                   head='<script src="lazysizes.min.js" async></script>\n'))
    write(site, "lazysizes.min.js", "/* lazysizes stand-in: swaps data-src into src */\n")
    return {"start": "", "siteTitle": "Lazy Portraits", "albums": [{"path": "", "title": "Lazy Portraits"}],
            "photos": truth_photos, "extras": [], "decorations": [], "unreachable": []}


# --- inline data array, as galleria pages write it -----------------------------------------------

def inline_data(photos, site):
    truth_photos, records = [], []
    for stem, title in photos_of("nature")[:6]:
        write_resized(photos, "nature", stem, site, f"img/{stem}-200.jpg", 200)
        write_resized(photos, "nature", stem, site, f"img/{stem}-800.jpg", 800)
        write_resized(photos, "nature", stem, site, f"img/{stem}.jpg", None)
        records.append(f"  {{image: 'img/{stem}-800.jpg', thumb: 'img/{stem}-200.jpg', big: 'img/{stem}.jpg', "
                       f"title: '{title}'}}")
        truth_photos.append(photo(f"nature/{stem}", "", f"img/{stem}.jpg",
                                  [f"img/{stem}-200.jpg", f"img/{stem}-800.jpg", f"img/{stem}.jpg"], title))
    body = ('<h1>Galleria Classic</h1><div id="galleria"></div>\n<script src="galleria.min.js"></script>\n'
            "<script>\nvar data = [\n" + ",\n".join(records) + ",\n];\nGalleria.run('#galleria', {dataSource: data});\n</script>")
    write(site, "index.html", page("Galleria Classic", body))
    write(site, "galleria.min.js", "/* galleria stand-in */\nvar Galleria = {run: function () {}};\n")
    return {"start": "", "siteTitle": "Galleria Classic", "albums": [{"path": "", "title": "Galleria Classic"}],
            "photos": truth_photos, "extras": [], "decorations": [], "unreachable": []}


# --- JSON data file: linked with rel=alternate, or named in an inline script -------------------

def json_data(photos, site):
    truth_photos = []

    def listing(album, name, page_path):
        records = []
        for stem, title in photos_of(album)[:4]:
            write_resized(photos, album, stem, site, f"data/{stem}_t.jpg", 240)
            write_resized(photos, album, stem, site, f"data/{stem}_o.jpg", None)
            records.append({"title": title, "thumb": f"data/{stem}_t.jpg", "full": f"data/{stem}_o.jpg"})
            truth_photos.append(photo(f"{album}/{stem}", page_path, f"data/{stem}_o.jpg",
                                      [f"data/{stem}_t.jpg", f"data/{stem}_o.jpg"], title))
        write(site, name, json.dumps({"title": "Science Portfolio", "photos": records}, indent=1))

    listing("science", "data.json", "")
    listing("science/space", "more.json", "more.html")
    write(site, "index.html", page(
        "Science Portfolio", '<h1>Science Portfolio</h1><div id="grid"></div><p><a href="more.html">More: Deep Space</a></p>',
        head='<link rel="alternate" type="application/json" href="data.json" title="Photos">\n'))
    write(site, "more.html", page(
        "Deep Space – Science Portfolio",
        '<h1>Deep Space</h1><div id="grid"></div>\n<script>\n'
        "fetch('more.json').then(r => r.json()).then(d => d.photos.forEach(p => show(p.thumb, p.full, p.title)));\n"
        "</script>"))
    return {"start": "", "siteTitle": "Science Portfolio",
            "albums": [{"path": "", "title": "Science Portfolio"}, {"path": "more.html", "title": "Deep Space"}],
            "photos": truth_photos, "extras": [], "decorations": [], "unreachable": []}


# --- no image at all ---------------------------------------------------------------------------

def no_image(photos, site):
    write(site, "index.html", page("Coming Soon", '<h1>Coming Soon</h1><p><a href="about.html">About</a></p>'))
    write(site, "about.html", page("About", "<p>Photos will appear here.</p>"))
    return {"start": "", "siteTitle": "Coming Soon", "albums": [], "photos": [], "extras": [], "decorations": [],
            "unreachable": []}


BUILDERS = {"wordpress": wordpress, "zenphoto": zenphoto, "lazyload": lazyload, "inline-data": inline_data,
            "json-data": json_data, "no-image": no_image}


def build(name, photos, site):
    return BUILDERS[name](photos, site)
