"""MediaWiki 1.39 from Debian's `mediawiki` package on SQLite, for cms_site.py.

Installed with maintenance/install.php (no browser) into a private directory: LocalSettings.php,
the SQLite database, the upload directory and the localisation cache are the template's own, and
the served copy finds its database, uploads and cache through environment variables
(MW_CONFIG_FILE, which MediaWiki reads, and CMS_*), so nothing under /etc, /var/lib or /usr
changes. Debian's tree (/usr/share/mediawiki) provides the code, skins and resources.

The content: 25 photos imported with importImages.php (each file page has a description and is
in Category:Photographs), a page "Photo gallery" whose <gallery> (the default, traditional mode)
shows 20 of them with captions and links on to "More photos", whose <gallery mode="packed">
shows the other 5 without captions. ImageMagick writes the thumbnails when a page is parsed
($wgGenerateThumbnailOnParse, the default), as on a fresh Debian install with no 404 handler.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import urllib.parse

import cms_photos
import cms_site

MEDIAWIKI = "/usr/share/mediawiki"
SITE_TITLE = "Field Guide"
CATEGORY = "Photographs"
GALLERY_PAGE = "Photo gallery"
MORE_PAGE = "More photos"
MAIN_GALLERY = 20


def check_installed():
    missing = []
    if shutil.which("php") is None:
        missing.append("php-cli")
    if not os.path.exists(f"{MEDIAWIKI}/maintenance/install.php"):
        missing.append("mediawiki")
    if shutil.which("php"):
        modules = subprocess.run(["php", "-m"], capture_output=True, text=True).stdout.lower().split()
        for module, package in (("pdo_sqlite", "php-sqlite3"), ("intl", "php-intl"), ("mbstring", "php-mbstring"),
                                ("xml", "php-xml")):
            if module not in modules:
                missing.append(package)
    if shutil.which("convert") is None:
        missing.append("imagemagick")
    if missing:
        raise cms_site.Missing(f"MediaWiki needs {', '.join(missing)} (apt-get install {' '.join(missing)})")


def file_name(photo):
    """The wiki's name of a photo's file: its title, as people name uploads on a wiki."""
    return photo["title"] + ".jpg"


def url_title(name):
    """A title as MediaWiki writes it in URLs: spaces as underscores, the rest percent-encoded."""
    return urllib.parse.quote(name.replace(" ", "_"), safe="/:(),!*'-._~")


def environment(directory):
    """What the served copy (and a maintenance script) reads to find the copy's own state."""
    return {"MW_CONFIG_FILE": f"{directory}/LocalSettings.php", "MW_INSTALL_PATH": MEDIAWIKI,
            "CMS_SQLITE_DIR": f"{directory}/data", "CMS_IMAGES": f"{directory}/images",
            "CMS_CACHE": f"{directory}/cache"}


def maintenance(directory, script, *arguments, text=None):
    """Runs maintenance script SCRIPT on the wiki in DIRECTORY (TEXT on its standard input)."""
    env = dict(os.environ, **environment(directory))
    return cms_site.run(["php", "-d", "memory_limit=512M", f"{MEDIAWIKI}/maintenance/{script}", *arguments],
                        env=env, cwd=MEDIAWIKI, input=text or "")


def build(site, directory):
    for sub in ("data", "images", "cache", "import"):
        os.makedirs(f"{directory}/{sub}")
    # install.php writes LocalSettings.php; the fixture's settings follow it (see settings()).
    cms_site.run(["php", f"{MEDIAWIKI}/maintenance/install.php", "--dbtype=sqlite", f"--dbpath={directory}/data",
                  "--dbname=fieldguide", f"--server=http://127.0.0.1:{cms_site.TEMPLATE_PORT}", "--scriptpath=",
                  "--lang=en", "--pass=fixture-password-not-secret", f"--confpath={directory}", SITE_TITLE, "Editor"],
                 cwd=MEDIAWIKI, env=dict(os.environ, MW_INSTALL_PATH=MEDIAWIKI))
    with open(f"{directory}/LocalSettings.php", "a") as f:
        f.write(settings())
    photos = cms_photos.photos()
    for photo in photos:
        name = file_name(photo)
        shutil.copy(photo["source"], f"{directory}/import/{name}")
        with open(f"{directory}/import/{os.path.splitext(name)[0]}.txt", "w") as f:
            f.write(f"== Summary ==\n{photo['caption']}.\n\nPhotographed in May 2024.\n\n[[Category:{CATEGORY}]]\n")
    maintenance(directory, "importImages.php", "--user=Editor", "--comment-ext=txt", "--summary=Photos from May 2024",
                "--extensions=jpg", f"{directory}/import")
    shutil.rmtree(f"{directory}/import")
    main, more = photos[:MAIN_GALLERY], photos[MAIN_GALLERY:]
    pages = {
        "Main Page": (f"Welcome to the '''{SITE_TITLE}''', a wiki of the plants, places and things we photograph.\n\n"
                      f"* The [[{GALLERY_PAGE}]]: this spring's photographs.\n"
                      f"* Every photo by subject: [[:Category:{CATEGORY}]].\n"),
        GALLERY_PAGE: ("Photographs from May 2024. Click a picture for its file page and the full size.\n\n"
                       "<gallery>\n" + "".join(f"File:{file_name(p)}|{p['caption']}\n" for p in main) +
                       f"</gallery>\n\nThere are [[{MORE_PAGE}|more photos]] on the next page.\n"),
        MORE_PAGE: ("The rest of May, packed.\n\n<gallery mode=\"packed\" heights=\"160px\">\n" +
                    "".join(f"File:{file_name(p)}\n" for p in more) +
                    f"</gallery>\n\nBack to the [[{GALLERY_PAGE}]].\n"),
        f"Category:{CATEGORY}": "Every photograph uploaded to this wiki.\n",
    }
    for title, text in pages.items():
        maintenance(directory, "edit.php", "--user=Editor", "--summary=Fixture content", title, text=text)
    maintenance(directory, "runJobs.php")
    write_truth(directory, photos)


def settings():
    return r"""
# --- The fixture's settings (catalog-mirror end-to-end tests) ---
# Short URLs as most wikis set them up; a served copy answers on its own port.
$wgArticlePath = "/wiki/$1";
$wgUsePathInfo = true;
$wgServer = WebRequest::detectServer();
$wgCanonicalServer = $wgServer;
# The served copy's own database, uploads and caches.
$wgSQLiteDataDir = getenv( 'CMS_SQLITE_DIR' );
$wgUploadDirectory = getenv( 'CMS_IMAGES' );
$wgUploadPath = "/images";
$wgCacheDirectory = getenv( 'CMS_CACHE' );
$wgEnableUploads = true;
$wgUseImageMagick = true;
$wgImageMagickConvertCommand = "/usr/bin/convert";
$wgFileExtensions = [ 'png', 'gif', 'jpg', 'jpeg', 'webp' ];
# Nothing from outside and no background work during page views.
$wgUseInstantCommons = false;
$wgJobRunRate = 0;
$wgDefaultSkin = "vector";
"""


def start(built, work, port, processes):
    """A private copy of the template (database and caches copied, uploads hard-linked) on PORT."""
    for sub in ("data", "cache"):
        shutil.rmtree(f"{work}/{sub}", ignore_errors=True)
        shutil.copytree(f"{built}/{sub}", f"{work}/{sub}")
    shutil.rmtree(f"{work}/images", ignore_errors=True)
    cms_site.run(["cp", "-al", f"{built}/images", f"{work}/images"])
    shutil.copy(f"{built}/LocalSettings.php", f"{work}/LocalSettings.php")
    cms_site.php_server(processes, port, {"CMS_APP": "mediawiki", **environment(work)}, f"{work}/php.log")


def image_path(name):
    """The path MediaWiki stores file NAME under: /images/a/ab/Name.jpg (hashed upload directories)."""
    key = name.replace(" ", "_")
    digest = hashlib.md5(key.encode()).hexdigest()
    return f"/images/{digest[0]}/{digest[:2]}/{url_title(name)}"


def write_truth(directory, photos):
    """Serves the template once, reads the pages a visitor reads, and writes truth.json.

    Reading them also has MediaWiki write every thumbnail those pages show, so the served
    copies find them made (as a wiki that has been visited does).
    """
    processes = cms_site.Processes()
    work = f"{directory}/truth-work"
    os.makedirs(work)
    try:
        port = cms_site.free_port()
        # The template itself is served: thumbnails made now stay in it.
        cms_site.php_server(processes, port, {"CMS_APP": "mediawiki", **environment(directory)}, f"{work}/php.log")
        origin = f"http://127.0.0.1:{port}"
        gallery, more, category = (f"/wiki/{url_title(t)}" for t in (GALLERY_PAGE, MORE_PAGE, f"Category:{CATEGORY}"))
        pages = ["/wiki/Main_Page", gallery, more, category, "/wiki/Special:ListFiles", "/wiki/Special:NewFiles"]
        pages += [f"/wiki/File:{url_title(file_name(p))}" for p in photos]
        texts = {page: cms_site.fetch(origin + page) for page in pages}
        # Twice: the second reading is what every later visitor (and the served copies) sees.
        texts = {page: cms_site.fetch(origin + page) for page in pages}
    finally:
        processes.stop()
        shutil.rmtree(work, ignore_errors=True)
    linked = set()
    for text in texts.values():
        linked.update(re.findall(r"(/images/[^\s\"'<>,)]+)", text))
    truth_photos = []
    for index, photo in enumerate(photos):
        name = file_name(photo)
        original = image_path(name)
        if original not in linked:
            raise RuntimeError(f"no page links {original}")
        thumbs = sorted((u for u in linked if u.startswith(original.replace("/images/", "/images/thumb/", 1) + "/")),
                        key=lambda u: int(re.search(r"/(\d+)px-[^/]*$", u).group(1)))
        main = index < MAIN_GALLERY
        album = gallery if main else more
        title, source = (photo["caption"], "gallery-caption") if main else (photo["title"], "file-name")
        hashed, file = original.removeprefix("/images/").rsplit("/", 1)
        family = f"/images/(?:thumb/)?{re.escape(hashed)}/{re.escape(file)}(?:/[0-9]+px-{re.escape(file)})?"
        truth_photos.append({
            "id": photo["stem"], "title": title, "titleFrom": source, "album": album, "albums": [album, category],
            "original": original, "renditions": thumbs + [original], "family": family,
            "page": f"/wiki/File:{url_title(name)}",
            "unlinked": [],
        })
    furniture = sorted({u for text in texts.values()
                        for u in re.findall(r"(/resources/assets/[^\s\"'<>,)]+\.(?:png|svg|jpg|gif))", text)})
    truth = {
        "name": "mediawiki", "application": f"MediaWiki {mediawiki_version()} (Vector)", "siteTitle": SITE_TITLE,
        "start": "/wiki/Main_Page",
        # From a gallery page with --max-depth 1 a photo's title is what that page and its file page
        # show: the gallery's caption, else the file's name (a category lists files by name).
        "galleries": [
            {"path": gallery, "title": GALLERY_PAGE, "photos": [p["stem"] for p in photos[:MAIN_GALLERY]],
             "titles": {p["stem"]: p["caption"] for p in photos[:MAIN_GALLERY]}},
            {"path": more, "title": MORE_PAGE, "photos": [p["stem"] for p in photos[MAIN_GALLERY:]],
             "titles": {p["stem"]: p["title"] for p in photos[MAIN_GALLERY:]}},
            {"path": category, "title": f"Category:{CATEGORY}", "photos": [p["stem"] for p in photos],
             "titles": {p["stem"]: p["title"] for p in photos}},
        ],
        "photos": truth_photos, "photoPages": sorted(p["page"] for p in truth_photos), "furniture": furniture,
        "notes": [
            "A photo's file is /images/a/ab/Name.jpg; its thumbnails are /images/thumb/a/ab/Name.jpg/120px-Name.jpg "
            "(srcset 1.5x and 2x: 180px, 240px).",
            "Its own page is /wiki/File:Name.jpg, an HTML page whose name ends in .jpg.",
            "The file page shows an 800 px preview (srcset 1200px, 1600px) and links 'Other resolutions' (thumbnails "
            "MediaWiki makes when it renders the page) and the original; its thumbnails carry ?TIMESTAMP queries.",
            "The photos of 'More photos' have no caption: their title is the file's name without its extension.",
        ],
    }
    with open(f"{directory}/truth.json", "w") as f:
        json.dump(truth, f, indent=1)


def mediawiki_version():
    with open(f"{MEDIAWIKI}/includes/Defines.php") as f:
        return re.search(r"define\( 'MW_VERSION', '([^']+)'", f.read()).group(1)
