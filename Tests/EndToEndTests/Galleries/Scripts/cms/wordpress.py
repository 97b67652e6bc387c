"""WordPress 6.1 from Debian's `wordpress` package on MariaDB, for cms_site.py.

Debian's /usr/share/wordpress/wp-config.php reads /etc/wordpress/config-HOST.php; the fixture
changes nothing under /etc or /usr: it lays out a private document root whose top-level PHP files
are copies (PHP resolves __DIR__ through symlinks, and wp-load.php finds wp-config.php beside
itself), wp-admin and wp-includes link to Debian's, wp-content holds links to the two themes and
the uploads, and its own wp-config.php points at a private MariaDB (datadir and socket of its own,
no network, run as root with --user=root).

Two templates share one base (install, 25 photos and a logo uploaded with every size WordPress
makes, which is the slow part): wordpress-block (twentytwentythree, Gallery and Image blocks) and
wordpress-classic (twentytwentyone, the classic editor's [gallery] and [caption] shortcodes).
"""
import json
import os
import re
import shutil
import subprocess
import time

import cms_photos
import cms_site

WORDPRESS = "/usr/share/wordpress"
THEMES = {"block": "twentytwentythree", "classic": "twentytwentyone"}
SITE_TITLE = "Field Notes"

# (slug, title, date, kind, photo stems, intro); kinds: gallery-media (a Gallery linking each photo
# to its file), gallery-attachment (square thumbnails linking to attachment pages), single (one
# captioned image), featured (the photo is only the post's featured image), essay (captioned
# images between paragraphs).
POSTS = [
    ("a-week-of-close-ups", "A week of close-ups", "2024-05-06 09:12:00", "gallery-media",
     ["aqua", "blinds", "fresh-flower", "garden", "green-meadow", "ladybird", "raindrops", "two-wings", "wood",
      "yellow-flower"],
     "Every morning this week I took the macro lens into the garden."),
    ("up-in-the-mountains", "Up in the mountains", "2024-05-11 18:40:00", "gallery-attachment",
     ["aitzgorri", "picos-de-europa", "sunset-ridge", "forest-stream", "dandelion-clocks", "bridge"],
     "Six days of walking, one photo a day. Click a thumbnail for the full picture."),
    ("breakfast", "Breakfast", "2024-05-14 08:05:00", "single", ["fig"],
     "Nothing fancy today."),
    ("by-the-sea", "By the sea", "2024-05-18 16:30:00", "single", ["dune"],
     "A windy afternoon on the coast."),
    ("before-the-storm", "Before the storm", "2024-05-21 19:55:00", "featured", ["storm"],
     "We drove home just ahead of it. The rain caught us at the last exit."),
    ("around-the-house", "Around the house", "2024-05-25 11:00:00", "essay",
     ["brushes", "wine", "hummingbird-lamp", "friends", "wall-clock", "hazel-leaves"],
     "A rainy Saturday indoors, with the camera."),
]
# Photos shown without a caption or alt text: the site titles them only on their attachment pages.
UNCAPTIONED = {"aitzgorri", "picos-de-europa", "sunset-ridge", "forest-stream", "dandelion-clocks", "bridge"}
# The single-image post that links nowhere (its photo is narrower than 2,048 px, so its file is in the srcset).
UNLINKED = {"by-the-sea"}


def check_installed():
    missing = []
    if shutil.which("php") is None:
        missing.append("php-cli")
    if not os.path.exists(f"{WORDPRESS}/wp-settings.php"):
        missing.append("wordpress")
    for theme in THEMES.values():
        if not os.path.isdir(f"{WORDPRESS}/wp-content/themes/{theme}"):
            missing.append(f"wordpress-theme-{theme}")
    if not any(os.path.exists(f"{d}/mariadbd") for d in ("/usr/sbin", "/usr/bin")):
        missing.append("mariadb-server")
    if shutil.which("php"):
        modules = subprocess.run(["php", "-m"], capture_output=True, text=True).stdout.lower().split()
        for module, package in (("mysqli", "php-mysql"), ("gd", "php-gd")):
            if module not in modules:
                missing.append(package)
    if shutil.which("convert") is None:
        missing.append("imagemagick")
    if missing:
        raise cms_site.Missing(f"WordPress needs {', '.join(missing)} (apt-get install {' '.join(missing)})")


def mariadbd():
    return next(p for p in ("/usr/sbin/mariadbd", "/usr/bin/mariadbd") if os.path.exists(p))


def start_mariadb(datadir, socket_path, processes, log):
    """MariaDB on DATADIR listening only on SOCKET_PATH; returns when it accepts connections."""
    command = [mariadbd(), "--no-defaults", f"--datadir={datadir}", "--user=root", "--skip-networking",
               f"--socket={socket_path}", f"--pid-file={socket_path}.pid", "--innodb-log-file-size=4M",
               "--innodb-buffer-pool-size=32M", "--skip-log-bin", "--performance-schema=OFF",
               # A fixture needs no durability: no fsync per commit (a clean shutdown still writes all).
               "--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0", "--sync-binlog=0",
               f"--log-error={log}"]
    process = processes.start(command, log)
    for _ in range(600):
        if process.poll() is not None:
            raise RuntimeError(f"mariadbd exited {process.returncode}: {open(log).read()[-600:]}")
        if os.path.exists(socket_path):
            try:
                sql(socket_path, "SELECT 1")
                return
            except RuntimeError:
                pass
        time.sleep(0.05)
    raise RuntimeError("mariadbd did not start within 30 s")


def sql(socket_path, statement, database=None):
    command = ["mariadb", "--no-defaults", "-S", socket_path, "-uroot", "-N", "-e", statement]
    return cms_site.run(command + ([database] if database else []))


def layout_docroot(docroot):
    """The private document root: copies of the entry points, links to Debian's code and themes."""
    os.makedirs(f"{docroot}/wp-content/plugins")
    os.makedirs(f"{docroot}/wp-content/themes")
    os.makedirs(f"{docroot}/wp-content/uploads")
    for name in os.listdir(WORDPRESS):
        if name.endswith(".php") and name not in ("wp-config.php", "wp-config-sample.php"):
            shutil.copy(f"{WORDPRESS}/{name}", f"{docroot}/{name}")
    for name in ("wp-admin", "wp-includes"):
        os.symlink(f"{WORDPRESS}/{name}", f"{docroot}/{name}")
    for theme in THEMES.values():
        os.symlink(f"{WORDPRESS}/wp-content/themes/{theme}", f"{docroot}/wp-content/themes/{theme}")
    with open(f"{docroot}/wp-config.php", "w") as f:
        f.write("""<?php
// The fixture's own configuration; the database socket is the served copy's (cms_site.py).
define( 'DB_NAME', 'wordpress' );
define( 'DB_USER', 'root' );
define( 'DB_PASSWORD', '' );
define( 'DB_HOST', 'localhost:' . getenv( 'CMS_DB_SOCKET' ) );
define( 'DB_CHARSET', 'utf8mb4' );
define( 'DB_COLLATE', '' );
foreach ( array( 'AUTH', 'SECURE_AUTH', 'LOGGED_IN', 'NONCE' ) as $kind ) {
\tdefine( $kind . '_KEY', 'fixture-' . $kind . '-key-not-secret' );
\tdefine( $kind . '_SALT', 'fixture-' . $kind . '-salt-not-secret' );
}
$table_prefix = 'wp_';
define( 'WP_DEBUG', false );
// No loopback request to wp-cron.php from page views, no update checks, nothing from outside.
define( 'DISABLE_WP_CRON', true );
define( 'AUTOMATIC_UPDATER_DISABLED', true );
define( 'WP_HTTP_BLOCK_EXTERNAL', true );
define( 'WP_CONTENT_DIR', __DIR__ . '/wp-content' );
if ( ! defined( 'ABSPATH' ) ) {
\tdefine( 'ABSPATH', __DIR__ . '/' );
}
require_once ABSPATH . 'wp-settings.php';
""")


def make_logo(path):
    """The site's logo: a 512 px green disc with a white mountain, drawn by ImageMagick."""
    cms_site.run(["convert", "-size", "512x512", "xc:none", "-fill", "#2a6f4e", "-draw", "circle 256,256 256,16",
                  "-fill", "white", "-draw", "polygon 96,360 208,176 272,272 320,216 416,360",
                  "-strip", "-define", "png:exclude-chunks=date,time", path])


def photo_spec():
    photos = []
    uploaded = {}
    for index, (slug, _, date, _, stems, _) in enumerate(POSTS):
        for stem in stems:
            # Uploaded a few days before its post, in May 2024: every file is under /2024/05/.
            uploaded[stem] = f"2024-05-0{1 + index % 5} 10:{len(uploaded):02d}:00"
    for photo in cms_photos.photos():
        photos.append({**photo, "uploaded": uploaded[photo["stem"]],
                       "captioned": photo["stem"] not in UNCAPTIONED, "alted": photo["stem"] not in UNCAPTIONED,
                       "description": f"Photographed in May 2024. {photo['caption']}."})
    return photos


def fill(docroot, socket_path, mode, spec, directory):
    spec_file = os.path.join(directory, f"{mode}-spec.json")
    with open(spec_file, "w") as f:
        json.dump(spec, f, indent=1)
    env = dict(os.environ, CMS_DB_SOCKET=socket_path)
    cms_site.run(["php", "-d", "memory_limit=1024M", "-d", "display_errors=stderr",
                  os.path.join(cms_site.HERE, "wordpress_fill.php"), docroot, mode, spec_file,
                  os.path.join(directory, f"{mode}.json")], env=env)


def template_origin():
    return f"http://127.0.0.1:{cms_site.TEMPLATE_PORT}"


def build_base(directory):
    docroot = f"{directory}/docroot"
    layout_docroot(docroot)
    make_logo(f"{directory}/field-notes-logo.png")
    cms_site.run(["mariadb-install-db", "--no-defaults", f"--datadir={directory}/db", "--user=root",
                  "--auth-root-authentication-method=normal", "--skip-test-db", "--innodb-log-file-size=4M"])
    processes = cms_site.Processes()
    try:
        socket_path = f"{directory}/m.sock"
        start_mariadb(f"{directory}/db", socket_path, processes, f"{directory}/mariadb.log")
        sql(socket_path, "CREATE DATABASE wordpress CHARACTER SET utf8mb4")
        spec = {"origin": template_origin(), "siteTitle": SITE_TITLE, "tagline": "Photographs from walks near home",
                "photos": photo_spec(), "logo": f"{directory}/field-notes-logo.png"}
        fill(docroot, socket_path, "base", spec, directory)
    finally:
        processes.stop()


def build(site, directory):
    theme = site.removeprefix("wordpress-")
    base = cms_site.cached(f"wordpress-base-{cms_site.inputs_digest('wordpress-base')}", build_base)
    # The uploads are only read from here on: hard links share them with the base.
    cms_site.run(["cp", "-al", f"{base}/docroot", f"{directory}/docroot"])
    shutil.copytree(f"{base}/db", f"{directory}/db", symlinks=True)
    shutil.copy(f"{base}/base.json", f"{directory}/base.json")
    processes = cms_site.Processes()
    try:
        socket_path = f"{directory}/m.sock"
        start_mariadb(f"{directory}/db", socket_path, processes, f"{directory}/mariadb.log")
        posts = [{"slug": slug, "title": title, "date": date, "kind": kind, "photos": stems_to_names(stems),
                  "intro": intro, "unlinked": slug in UNLINKED,
                  "between": [f"({n + 1} of {len(stems)})" for n in range(len(stems))],
                  "comment": "Lovely colours, especially the ladybird!" if kind == "gallery-media" else None}
                 for slug, title, date, kind, stems, intro in POSTS]
        fill(f"{directory}/docroot", socket_path, "content",
             {"origin": template_origin(), "theme": theme, "posts": posts}, directory)
    finally:
        processes.stop()
    write_truth(site, directory)


def stems_to_names(stems):
    names = {p["stem"]: p["name"] for p in cms_photos.photos()}
    return [names[s] for s in stems]


def start(built, work, port, processes):
    """A private copy of the template's database, moved to PORT, served by MariaDB and PHP."""
    db = f"{work}/db"
    shutil.rmtree(db, ignore_errors=True)
    shutil.copytree(f"{built}/db", db, symlinks=True)
    socket_path = f"{work}/m.sock"
    start_mariadb(db, socket_path, processes, f"{work}/mariadb.log")
    old, new = template_origin(), f"http://127.0.0.1:{port}"
    # What an admin does when a site moves (the origins have the same length: serialized
    # options stay valid).
    sql(socket_path, f"UPDATE wp_options SET option_value = REPLACE(option_value, '{old}', '{new}'); "
                     f"UPDATE wp_posts SET post_content = REPLACE(post_content, '{old}', '{new}'), "
                     f"guid = REPLACE(guid, '{old}', '{new}'); "
                     f"UPDATE wp_users SET user_url = REPLACE(user_url, '{old}', '{new}'); "
                     f"UPDATE wp_comments SET comment_author_url = REPLACE(comment_author_url, '{old}', '{new}'); "
                     f"UPDATE wp_postmeta SET meta_value = REPLACE(meta_value, '{old}', '{new}')", "wordpress")
    cms_site.php_server(processes, port, {"CMS_APP": "wordpress", "CMS_DOCROOT": f"{built}/docroot",
                                          "CMS_DB_SOCKET": socket_path}, f"{work}/php.log")


def expected_title(kind, theme, attachment):
    """The photo's title as the site shows it beside the photo, and which markup holds it."""
    if kind == "gallery-attachment":
        return attachment["title"], "attachment-page-title"
    if kind == "featured":
        # twentytwentyone prints the featured image's caption under it; twentytwentythree only its alt.
        return (attachment["caption"], "figcaption") if theme == "classic" else (attachment["alt"], "alt")
    return attachment["caption"], "figcaption"


def write_truth(site, directory):
    """Serves the template once, reads every page a visitor can reach, and writes truth.json."""
    theme = site.removeprefix("wordpress-")
    with open(f"{directory}/content.json") as f:
        content = json.load(f)
    processes = cms_site.Processes()
    work = f"{directory}/truth-work"
    os.makedirs(work)
    try:
        port = cms_site.free_port()
        start(directory, work, port, processes)
        origin = f"http://127.0.0.1:{port}"
        old = template_origin()

        def path(url):
            return url.replace(old, "").replace(origin, "")

        pages = ["/", "/page/2/"] + [path(p["permalink"]) for p in content["posts"].values()] + \
                [path(a["page"]) for a in content["attachments"].values()]
        texts = {page: cms_site.fetch(origin + page) for page in pages}
    finally:
        processes.stop()
        shutil.rmtree(work, ignore_errors=True)
    linked = set()
    for text in texts.values():
        linked.update(path(m) for m in re.findall(r"(?:https?://127\.0\.0\.1:\d+)?(/wp-content/uploads/[^\s\"'<>,)]+)",
                                                   text))
    posts = {slug: (kind, title) for slug, title, _, kind, _, _ in POSTS}
    photos = []
    for stem, attachment in content["attachments"].items():
        files = attachment["files"]
        kind, _ = posts[attachment["post"]]
        by_width = sorted([(s["width"], path(s["url"])) for s in files["sizes"].values()] +
                          [(files["width"], path(files["url"]))])
        renditions = [url for _, url in by_width if url in linked]
        title, source = expected_title(kind, theme, attachment)
        post = path(content["posts"][attachment["post"]]["permalink"])
        folder, file = path(files["url"]).rsplit("/", 1)
        family = f"{re.escape(folder)}/{re.escape(stem)}(?:-scaled|-[0-9]+x[0-9]+)?\\.jpg"
        # twentytwentyone's home page shows a featured image with its caption, as a photo of its
        # own: the first page in crawl order that shows the photo (SPEC's album) is the home page.
        albums = [post, "/"] if kind == "featured" and theme == "classic" else [post]
        photos.append({
            "id": stem, "title": title, "titleFrom": source, "album": post, "albums": albums,
            "original": path(files["url"]), "fullSize": path(files["original"]) if files["original"] else None,
            "renditions": renditions, "family": family, "page": path(attachment["page"]),
            "unlinked": sorted({url for _, url in by_width if url not in linked} |
                               ({path(files["original"])} if files["original"] else set())),
        })
    logo = content["logo"]
    furniture = sorted({path(logo["url"])} | {path(s["url"]) for s in logo["sizes"].values()})
    titles = {p["id"]: p["title"] for p in photos}
    galleries = [{"path": path(content["posts"][slug]["permalink"]), "title": title,
                  "photos": [a for a, v in content["attachments"].items() if v["post"] == slug],
                  "titles": {a: titles[a] for a, v in content["attachments"].items() if v["post"] == slug}}
                 for slug, title, _, kind, _, _ in POSTS if kind.startswith("gallery")]
    missing = [p["id"] for p in photos if p["original"] not in linked]
    if missing:
        raise RuntimeError(f"no page links the file of {', '.join(missing)}")
    truth = {
        "name": site, "application": f"WordPress {wordpress_version()} ({THEMES[theme]})", "siteTitle": SITE_TITLE,
        "start": "/", "galleries": galleries, "photos": photos,
        "photoPages": sorted(p["page"] for p in photos), "furniture": furniture,
        "notes": [
            "A photo's file is the URL WordPress links as the media file: for photos wider than 2,560 px that is "
            "NAME-scaled.jpg; the unscaled upload (`fullSize`) is linked by no page, only named by the REST API "
            "(media_details.original_image); a mirror may keep it as the photo's largest file instead.",
            "The home page lists posts; a photo's album is its post.",
        ],
    }
    with open(f"{directory}/truth.json", "w") as f:
        json.dump(truth, f, indent=1)


def wordpress_version():
    with open(f"{WORDPRESS}/wp-includes/version.php") as f:
        return re.search(r"\$wp_version = '([^']+)'", f.read()).group(1)
