"""Hand-written gallery fixtures for markup kinds that the generators do not cover: a WordPress
gallery (srcset + data-orig-file, attachment pages), a Zenphoto gallery (per-photo pages),
lazy loading (data-src/data-srcset + noscript), an inline data array, a JSON data file, and a
site with no image at all; and (issue 45) sites of real photographs where only the pixels tell
which images are one photo: preload-script, crops, related-names, lazy-bg, apache-listing,
hostile-listing. Each writes its site and returns its ground truth (build_galleries.py
describes the format). Pictures are resized copies of the photo set, written with Pillow.
"""
import html
import json
import os

import make_photos
import real_photos

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




# --- Issue 45, "a photo is its pixels": hand-written sites made of real photographs ------------
#
# Each one tests a way a site's structure proposes two images as one photo (or hides a photo),
# where only the pixels can say: real_photos.py's photographs, downscaled, so the pixel matcher
# sees photographs. Each gallery keeps to at most 12 photos and 1200 px.

def real(stem, longest):
    return real_photos.load(stem, longest)


def save_real(image, site, path, quality=85):
    real_photos.save(image, os.path.join(site, path), quality)
    return image.size


def centre_square(image, side):
    """The centred square crop of `image`, resized to side x side (what most themes' thumbnails are)."""
    edge = min(image.size)
    left, top = (image.width - edge) // 2, (image.height - edge) // 2
    return image.crop((left, top, left + edge, top + edge)).resize((side, side), Image.LANCZOS)


def anchored_crop(image, size, anchor):
    """A "smart" crop: the largest box of `size`'s aspect anchored at the left (or top) edge rather
    than centred, as a saliency cropper picks it, resized to `size`."""
    width, height = size
    if image.width * height > image.height * width:  # wider than the box: cut the sides
        box_width = image.height * width // height
        left = 0 if anchor == "left" else image.width - box_width
        box = (left, 0, left + box_width, image.height)
    else:
        box_height = image.width * height // width
        top = 0 if anchor == "top" else image.height - box_height
        box = (0, top, image.width, top + box_height)
    return image.crop(box).resize(size, Image.LANCZOS)


def zoom_crop(image, size, height_share=0.9, centre=(0.4, 0.45)):
    """A crop of `height_share` of the image's height at size's aspect, centred off the middle at
    `centre` (fractions), resized (zoomed) to `size`: what a feed's media:thumbnail often is."""
    width, height = size
    box_height = round(image.height * height_share)
    box_width = min(image.width, box_height * width // height)
    left = min(max(0, round(image.width * centre[0] - box_width / 2)), image.width - box_width)
    top = min(max(0, round(image.height * centre[1] - box_height / 2)), image.height - box_height)
    return image.crop((left, top, left + box_width, top + box_height)).resize(size, Image.LANCZOS)


def real_title(stem):
    return real_photos.caption(stem) or stem.replace("-", " ").capitalize()


# --- preload-script: each photo page preloads the next photo in an inline script ---------------

def preload_script(photos, site):
    stems = ["aqua", "dune", "garden", "ladybird", "storm", "fig", "picos", "dandelions"]
    thumbs, truth_photos = [], []
    for index, stem in enumerate(stems):
        number = f"{index + 1:02d}"
        following = f"{(index + 1) % len(stems) + 1:02d}"
        title = real_title(stem)
        save_real(real(stem, 1000), site, f"photo-{number}.jpg")
        save_real(real(stem, 200), site, f"thumbs/photo-{number}.jpg")
        thumbs.append(f'<a href="photo-{number}.html"><img src="thumbs/photo-{number}.jpg" alt=""></a>')
        previous = f"{(index - 1) % len(stems) + 1:02d}"
        write(site, f"photo-{number}.html", page(
            f"Photo {index + 1} of {len(stems)} – Preloaded",
            f'<p><a href="index.html">Index</a> <a href="photo-{previous}.html">Previous</a> '
            f'<a href="photo-{following}.html">Next</a></p>\n'
            f'<div class="photo"><img src="photo-{number}.jpg" alt="">\n<p class="caption">{html.escape(title)}</p></div>',
            head=f'<script>\nvar next = new Image();\nnext.src = "photo-{following}.jpg";\n</script>\n'))
        truth_photos.append(photo(f"real/{stem}", "", f"photo-{number}.jpg", [f"thumbs/photo-{number}.jpg", f"photo-{number}.jpg"],
                                  title))
    write(site, "index.html", page("Preloaded", "<h1>Preloaded</h1>\n<div class=\"thumbs\">" + "\n".join(thumbs) + "</div>"))
    return {"start": "", "siteTitle": "Preloaded", "albums": [{"path": "", "title": "Preloaded"}],
            "photos": truth_photos, "extras": [], "decorations": [], "unreachable": []}


# --- crops: square, smart and zoomed crops of photos, an album cover and an RSS feed -----------

def crops(photos, site):
    grid = ["aitzgorri", "picos", "sunset", "bridge", "fig", "dune"]
    smart = {"aitzgorri": "left", "sunset": "right", "bridge": "left"}  # a second, off-centre thumbnail
    in_feed = ["picos", "bridge", "dune"]
    album = ["stream", "dandelions", "raindrops"]
    truth_photos, cards, highlights, items = [], [], [], []
    for stem in grid:
        title = real_title(stem)
        full = real(stem, 1000)
        save_real(full, site, f"full/{stem}.jpg")
        save_real(centre_square(full, 150), site, f"t/{stem}-150x150.jpg")
        renditions = [f"t/{stem}-150x150.jpg"]
        cards.append(f'<a href="full/{stem}.jpg" title="{html.escape(title)}"><img src="t/{stem}-150x150.jpg" '
                     f'width="150" height="150" alt="{html.escape(title)}"></a>')
        if stem in smart:
            save_real(anchored_crop(full, (240, 160), smart[stem]), site, f"t/{stem}-smart.jpg")
            renditions.append(f"t/{stem}-smart.jpg")
            highlights.append(f'<a href="full/{stem}.jpg"><img src="t/{stem}-smart.jpg" width="240" height="160" '
                              f'alt="{html.escape(title)}"></a>')
        if stem in in_feed:
            crop = zoom_crop(full, (900, 600))
            save_real(crop, site, f"feed/{stem}-900x600.jpg")
            renditions.append(f"feed/{stem}-900x600.jpg")
            size = os.path.getsize(os.path.join(site, f"full/{stem}.jpg"))
            items.append(f"<item><title>{html.escape(title)}</title><link>/full/{stem}.jpg</link>"
                         f"<guid>/full/{stem}.jpg</guid>"
                         f'<media:thumbnail url="/feed/{stem}-900x600.jpg" width="900" height="600"/>'
                         f'<enclosure url="/full/{stem}.jpg" length="{size}" type="image/jpeg"/></item>')
        truth_photos.append(photo(f"real/{stem}", "", f"full/{stem}.jpg", renditions + [f"full/{stem}.jpg"], title))
    # The album: its cover on the index is a re-encoded, resized copy of its first photo that
    # links to the album page; the cover is the album's picture, not a photo of its own.
    album_cards = []
    for index, stem in enumerate(album):
        title = real_title(stem)
        full = real(stem, 1000)
        save_real(full, site, f"full/{stem}.jpg")
        save_real(real(stem, 240), site, f"t/{stem}-240.jpg")
        album_cards.append(f'<figure><a href="/full/{stem}.jpg"><img src="/t/{stem}-240.jpg" alt=""></a>'
                           f"<figcaption>{html.escape(title)}</figcaption></figure>")
        optional = []
        if index == 0:
            save_real(real(stem, 320), site, "covers/forest.jpg", quality=70)
            optional = ["covers/forest.jpg"]
        truth_photos.append(photo(f"real/{stem}", "forest/", f"full/{stem}.jpg", [f"t/{stem}-240.jpg", f"full/{stem}.jpg"],
                                  title, optional))
    write(site, "forest/index.html", page("In the Forest – Cropped", "<h1>In the Forest</h1>\n" + "\n".join(album_cards)))
    write(site, "feed.xml", '<?xml version="1.0" encoding="utf-8"?>\n'
          '<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>Cropped</title>'
          "<link>/</link><description>New photos</description>\n" + "\n".join(items) + "\n</channel></rss>\n")
    write(site, "index.html", page(
        "Cropped",
        '<h1>Cropped</h1>\n<div class="grid">' + "\n".join(cards) + "</div>\n<h2>Highlights</h2>\n<div class=\"wide\">"
        + "\n".join(highlights) + "</div>\n<h2>Albums</h2>\n"
        '<div class="album"><a href="/forest/"><img src="/covers/forest.jpg" alt="">'
        "<span>In the Forest</span></a></div>",
        head='<link rel="alternate" type="application/rss+xml" title="Cropped" href="/feed.xml">\n'))
    return {"start": "", "siteTitle": "Cropped",
            "albums": [{"path": "", "title": "Cropped"}, {"path": "forest/", "title": "In the Forest"}],
            "photos": truth_photos, "extras": [], "decorations": [], "unreachable": []}


# --- related-names: file names that share a stem, two of them different photographs ------------

def related_names(photos, site):
    cards, truth_photos = [], []

    def card(image, caption, link=None):
        inner = f'<img src="/{image}" alt="">'
        if link:
            inner = f'<a href="/{link}">{inner}</a>'
        cards.append(f"<figure>{inner}<figcaption>{html.escape(caption)}</figcaption></figure>")

    # Two different photographs whose names say they are one: garden.jpg and garden-x900.jpg,
    # sunset.jpg and sunset_hu_7c2d.jpg. Each is a photo of its own.
    for name, stem, width in (("garden.jpg", "garden", 1000), ("garden-x900.jpg", "blinds", 900),
                              ("sunset.jpg", "sunset", 1100), ("sunset_hu_7c2d.jpg", "dandelions", 600)):
        save_real(real(stem, width), site, name)
        title = real_title(stem)
        card(name, title)
        truth_photos.append(photo(f"real/{stem}", "", name, [name], title))
    # A true pair, Hugo's way: IMG_2041_hu_abc.jpg is IMG_2041.jpg resized, and links to it.
    save_real(real("ladybird", 1200), site, "IMG_2041.jpg")
    save_real(real("ladybird", 600), site, "IMG_2041_hu_abc.jpg")
    card("IMG_2041_hu_abc.jpg", real_title("ladybird"), link="IMG_2041.jpg")
    truth_photos.append(photo("real/ladybird", "", "IMG_2041.jpg", ["IMG_2041_hu_abc.jpg", "IMG_2041.jpg"],
                              real_title("ladybird")))
    # A true pair that only the names join: the small one on the index, the large one on another page.
    save_real(real("wood", 1200), site, "DSC_0100.jpg")
    save_real(real("wood", 400), site, "DSC_0100-x400.jpg")
    card("DSC_0100-x400.jpg", real_title("wood"))
    truth_photos.append(photo("real/wood", "", "DSC_0100.jpg", ["DSC_0100-x400.jpg", "DSC_0100.jpg"], real_title("wood")))
    write(site, "large.html", page("Large prints – Related Names",
                                   '<h1>Large prints</h1>\n<p><img src="/DSC_0100.jpg" alt="" width="1200"></p>'))
    write(site, "index.html", page("Related Names", "<h1>Related Names</h1>\n" + "\n".join(cards)
                                   + '\n<p><a href="/large.html">Large prints</a></p>'))
    return {"start": "", "siteTitle": "Related Names", "albums": [{"path": "", "title": "Related Names"}],
            "photos": truth_photos, "extras": [], "decorations": [], "unreachable": []}


# --- lazy-bg: photos shown only as a lazy CSS background, each with a heading after it --------

def lazy_bg(photos, site):
    heroes = [("picos", "photo-x2000.jpg"), ("aitzgorri", "hero/mountain-x2000.jpg"), ("sunset", "hero/sunset-x2000.jpg")]
    figures = ["fig", "brushes", "wine"]
    blocks, truth_photos = [], []
    for stem, path in heroes:
        title = real_title(stem)
        save_real(real(stem, 1200), site, path)
        blocks.append(f'<section class="block">\n<div class="hero" data-bg="url({path})"></div>\n'
                      f"<h2>{html.escape(title)}</h2>\n<p>Read more below.</p>\n</section>")
        truth_photos.append(photo(f"real/{stem}", "", path, [path], title))
    for stem in figures:
        title = real_title(stem)
        save_real(real(stem, 800), site, f"img/{stem}.jpg")
        blocks.append(f'<figure><img src="img/{stem}.jpg" alt=""><figcaption>{html.escape(title)}</figcaption></figure>')
        truth_photos.append(photo(f"real/{stem}", "", f"img/{stem}.jpg", [f"img/{stem}.jpg"], title))
    write(site, "index.html", page("Full Width", "<h1>Full Width</h1>\n" + "\n".join(blocks),
                                   head='<script src="lazy-bg.js" defer></script>\n'))
    write(site, "lazy-bg.js", "/* sets each [data-bg] element's background-image when it scrolls into view */\n")
    return {"start": "", "siteTitle": "Full Width", "albums": [{"path": "", "title": "Full Width"}],
            "photos": truth_photos, "extras": [], "decorations": [], "unreachable": []}


# --- apache-listing: mod_autoindex's fancy listing, with its 20x22 GIF icons ------------------

APACHE_ICONS = {"blank.gif": (255, 255, 255), "back.gif": (200, 200, 255), "folder.gif": (230, 200, 120),
                "image2.gif": (120, 180, 120)}


def draw_icon(site, name, colour):
    """A 20x22 GIF in the manner of Apache's icons: a page with a folded corner, a glyph by kind."""
    from PIL import ImageDraw
    image = Image.new("P", (20, 22), 0)
    image.putpalette([255, 255, 255, 0, 0, 0, *colour, 128, 128, 128] + [0] * 756)
    draw = ImageDraw.Draw(image)
    if name != "blank.gif":
        draw.polygon([(2, 1), (13, 1), (18, 6), (18, 20), (2, 20)], fill=2, outline=1)
        draw.line([(13, 1), (13, 6), (18, 6)], fill=1)
        if name == "back.gif":
            draw.polygon([(5, 11), (10, 7), (10, 15)], fill=1)
        elif name == "image2.gif":
            draw.ellipse([6, 9, 10, 13], fill=3)
            draw.polygon([(4, 18), (9, 13), (12, 16), (16, 18)], fill=1)
    target = os.path.join(site, "icons", name)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    image.save(target, "GIF", transparency=0)


def apache_listing(photos, site):
    for name, colour in APACHE_ICONS.items():
        draw_icon(site, name, colour)
    truth_photos = []

    def listing(directory, files, subdirectories):
        rows = ['<tr><th valign="top"><img src="/icons/blank.gif" alt="[ICO]"></th><th><a href="?C=N;O=D">Name</a></th>'
                '<th><a href="?C=M;O=A">Last modified</a></th><th><a href="?C=S;O=A">Size</a></th>'
                '<th><a href="?C=D;O=A">Description</a></th></tr>', '<tr><th colspan="5"><hr></th></tr>',
                f'<tr><td valign="top"><img src="/icons/back.gif" alt="[PARENTDIR]"></td><td><a href="{"/" if directory == "pictures/" else "/pictures/"}">'
                'Parent Directory</a></td><td>&nbsp;</td><td align="right">  - </td><td>&nbsp;</td></tr>']
        for sub in subdirectories:
            rows.append(f'<tr><td valign="top"><img src="/icons/folder.gif" alt="[DIR]"></td><td><a href="{sub}/">{sub}/</a></td>'
                        '<td align="right">2026-11-02 09:14  </td><td align="right">  - </td><td>&nbsp;</td></tr>')
        for file, stem in files:
            save_real(real(stem, 1000), site, directory + file)
            size = os.path.getsize(os.path.join(site, directory + file))
            rows.append(f'<tr><td valign="top"><img src="/icons/image2.gif" alt="[IMG]"></td><td><a href="{file}">{file}</a></td>'
                        f'<td align="right">2026-11-02 09:14  </td><td align="right">{size // 1024}K</td><td>&nbsp;</td></tr>')
            truth_photos.append(photo(f"real/{stem}", directory, directory + file, [directory + file]))
        rows.append('<tr><th colspan="5"><hr></th></tr>')
        title = f"Index of /{directory.rstrip('/')}"
        write(site, directory + "index.html",
              '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">\n<html>\n <head>\n'
              f"  <title>{title}</title>\n </head>\n <body>\n<h1>{title}</h1>\n  <table>\n   "
              + "\n   ".join(rows) + "\n</table>\n<address>Apache/2.4.62 (Debian) Server at 127.0.0.1 Port 80</address>\n"
              "</body></html>\n")

    listing("pictures/", [("DSC01.jpg", "aqua"), ("DSC02.jpg", "green-meadow"), ("DSC03.jpg", "fresh-flower"),
                          ("DSC04.jpg", "two-wings"), ("DSC05.jpg", "clock")], ["2019"])
    listing("pictures/2019/", [("beach.jpg", "dune"), ("dog.jpg", "friends"), ("lamps.jpg", "bird-lamps")], [])
    return {"start": "pictures/", "siteTitle": "Index of /pictures",
            "albums": [{"path": "pictures/", "title": "Index of /pictures"},
                       {"path": "pictures/2019/", "title": "Index of /pictures/2019"}],
            "photos": truth_photos, "extras": [],
            "decorations": [f"icons/{name}" for name in APACHE_ICONS], "unreachable": []}


# --- hostile-listing: a JSON listing whose titles look like paths and markup ------------------

HOSTILE_TITLES = ["../../../../cm-escape-3", "&lt;img src=x onerror=alert(1)&gt;", "<script>alert(2)</script>",
                  "..\\..\\cm-escape-4", "Crème brûlée ☕ & \"quotes\""]


def hostile_listing(photos, site):
    records, truth_photos = [], []
    for stem, title in zip(["storm", "yellow-flower", "raindrops", "dragonfly", "clock"], HOSTILE_TITLES):
        save_real(real(stem, 240), site, f"data/{stem}_t.jpg")
        save_real(real(stem, 900), site, f"data/{stem}_o.jpg")
        records.append({"title": title, "thumb": f"data/{stem}_t.jpg", "full": f"data/{stem}_o.jpg"})
        truth_photos.append(photo(f"real/{stem}", "", f"data/{stem}_o.jpg", [f"data/{stem}_t.jpg", f"data/{stem}_o.jpg"],
                                  title))
    write(site, "data.json", json.dumps({"title": "Odd Titles", "photos": records}, indent=1, ensure_ascii=False))
    write(site, "index.html", page(
        "Odd Titles", '<h1>Odd Titles</h1><div id="grid"></div>',
        head='<link rel="alternate" type="application/json" href="data.json" title="Photos">\n'))
    return {"start": "", "siteTitle": "Odd Titles", "albums": [{"path": "", "title": "Odd Titles"}],
            "photos": truth_photos, "extras": [], "decorations": [], "unreachable": []}


PIXEL_BUILDERS = {"preload-script": preload_script, "crops": crops, "related-names": related_names, "lazy-bg": lazy_bg,
                  "apache-listing": apache_listing, "hostile-listing": hostile_listing}
NAMES += list(PIXEL_BUILDERS)
BUILDERS.update(PIXEL_BUILDERS)


def build(name, photos, site):
    if name in PIXEL_BUILDERS and real_photos.missing():
        raise RuntimeError(f"real photographs missing (mate-backgrounds, lomiri-wallpapers-16.04): {real_photos.missing()[:3]}")
    return BUILDERS[name](photos, site)
