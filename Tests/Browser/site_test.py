#!/usr/bin/env python3
"""The generated site, tried as a person would in real Chromium (issue 26).

Usage: site_test.py [--screenshots DIR] NAME=MIRROR_DIR ...

For each mirror, from file:// and over HTTP (a static server on 127.0.0.1): open a photo from
the grid, -> shows the next, Esc returns with focus on its thumbnail, the photo's URL in a fresh
tab shows it, Back closes the view and then leaves the album, search finds a photo by a word of
its title and opens it, no request leaves the mirror, no console error, nothing scrolls sideways
at 375 px, and axe-core finds no serious or critical violation on the start page, an album page,
the photo view and the search results. A mirror named `exif...` (photos whose files say when,
with what camera and where they were taken) is also checked for what the photo view shows of
it, the order by date taken, and search by keyword, camera and year. Prints one line per check and `N passed, M failed`;
exits 1 on any failure, 2 when Playwright or Chromium is missing.

Drives Debian's chromium (/usr/bin/chromium, or $CHROMIUM) through Playwright from PyPI, with
axe-core from axe-playwright-python (`.ci/run` installs both).
"""
import functools
import http.server
import os
import re
import sys
import threading
import time
import urllib.parse

try:
    from playwright.sync_api import sync_playwright
    from axe_playwright_python.sync_playwright import Axe
except ImportError as error:  # the Swift test turns this into a skip (or, under CI, a failure)
    print(f"missing: {error.name} (python3 -m pip install playwright axe-playwright-python)")
    sys.exit(2)

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # The browser drops requests it no longer needs (an image replaced by the next one).
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def serve(directory):
    server = Server(("127.0.0.1", 0), functools.partial(Quiet, directory=directory))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, label, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"ok    {label}")
        else:
            self.failed += 1
            print(f"FAIL  {label}{': ' + detail if detail else ''}")
        return ok


class Watch:
    """Every request a page makes and every console error it logs."""

    def __init__(self, page, inside):
        self.outside = []
        self.errors = []
        self.inside = inside
        page.on("request", self.request)
        page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    def request(self, request):
        url = request.url
        if url.startswith(("data:", "blob:", "about:")):
            return
        if not url.startswith(self.inside):
            self.outside.append(url)


def open_page(context, url, inside):
    page = context.new_page()
    watch = Watch(page, inside)
    page.goto(url)
    page.wait_for_load_state("load")
    return page, watch


# No preload: axe would fetch the stylesheets with XMLHttpRequest, which file:// refuses (a
# console error of the test's own making).
AXE_OPTIONS = {"resultTypes": ["violations"], "preload": False}


def serious(axe_results):
    return [f"{v['id']} ({v['impact']}): {v['help']} [{len(v['nodes'])}]"
            for v in axe_results.response["violations"] if v.get("impact") in ("serious", "critical")]


def axe_check(checks, axe, page, label):
    problems = serious(axe.run(page, options=AXE_OPTIONS))
    return checks.check(label, not problems, "; ".join(problems))


def album_with_photos(page):
    """The href of the first album page that has a grid of at least two photos, from the start page."""
    if page.locator(".photos .grid .item").count() >= 2:
        return page.url
    for href in page.eval_on_selector_all("a.album", "links => links.map(a => a.href)"):
        page.goto(href)
        if page.locator(".photos .grid .item").count() >= 2:
            return page.url
    return None


def viewer_open(page):
    return page.evaluate("() => !!document.querySelector('dialog.viewer') && document.querySelector('dialog.viewer').open")


def no_sideways_scroll(page):
    return page.evaluate("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1")


def run_mirror(browser, checks, name, directory, mode, base, shots):
    """Every check on one mirror, served as `mode` from `base`."""
    tag = f"{name} ({mode})"
    start = base + "index.html"
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page, watch = open_page(context, start, base)
    axe = Axe()
    axe_check(checks, axe, page, f"{tag}: start page has no serious axe violation")
    if shots:
        page.screenshot(path=os.path.join(shots, f"{name}-start.png"), full_page=True)
    album = album_with_photos(page)
    if not checks.check(f"{tag}: an album page with photos is linked", album is not None):
        context.close()
        return
    page.wait_for_load_state("load")
    axe_check(checks, axe, page, f"{tag}: album page has no serious axe violation")
    if shots:
        page.screenshot(path=os.path.join(shots, f"{name}-album.png"), full_page=False)
    album_url = page.url.split("#")[0]
    items = page.locator(".photos .grid .item")
    first_id = items.nth(0).get_attribute("id")
    second_id = items.nth(1).get_attribute("id")
    first_title = items.nth(0).locator(".title").inner_text().strip()
    second_title = items.nth(1).locator(".title").inner_text().strip()

    # Open a photo from the grid: the view, its title, its own URL.
    items.nth(0).locator("a.tile").click()
    page.wait_for_function("() => document.querySelector('dialog.viewer').open")
    checks.check(f"{tag}: a click on a photo opens the photo view", viewer_open(page))
    checks.check(f"{tag}: the view shows the photo's title",
                 page.locator(".viewer-title").inner_text().strip() == first_title,
                 page.locator(".viewer-title").inner_text())
    checks.check(f"{tag}: the photo has its own URL", page.url.endswith("#" + first_id), page.url)
    page.wait_for_function("() => document.querySelector('.viewer-image').complete")
    natural = page.evaluate("() => document.querySelector('.viewer-image').naturalWidth")
    checks.check(f"{tag}: the view's image loads", natural > 0)
    axe_check(checks, axe, page, f"{tag}: photo view has no serious axe violation")
    if shots:
        page.screenshot(path=os.path.join(shots, f"{name}-photo.png"))

    # -> shows the next; Esc returns to the grid with focus on its thumbnail.
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => location.hash === '#{second_id}'")
    checks.check(f"{tag}: -> shows the next photo", page.locator(".viewer-title").inner_text().strip() == second_title)
    checks.check(f"{tag}: the view says where the photo is", "2 of" in page.locator(".viewer-position").inner_text())
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(f"() => location.hash === '#{first_id}'")
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => location.hash === '#{second_id}'")
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.querySelector('dialog.viewer').open")
    focused = page.evaluate("() => document.activeElement && document.activeElement.closest('.item') && document.activeElement.closest('.item').id")
    checks.check(f"{tag}: Esc closes the view and focus returns to the photo's thumbnail", focused == second_id, str(focused))
    checks.check(f"{tag}: closing the view leaves the photo's URL", "#" not in page.url, page.url)

    # The photo's URL in a fresh tab shows it.
    fresh, fresh_watch = open_page(context, album_url + "#" + second_id, base)
    fresh.wait_for_function("() => document.querySelector('dialog.viewer').open", timeout=5000)
    checks.check(f"{tag}: the photo's URL in a fresh tab shows the photo",
                 fresh.locator(".viewer-title").inner_text().strip() == second_title)
    fresh.keyboard.press("Escape")
    fresh.wait_for_function("() => !document.querySelector('dialog.viewer').open")
    checks.check(f"{tag}: Esc in a fresh tab shows the album", album_url.split("/")[-1] in fresh.url and "#" not in fresh.url, fresh.url)
    watch.errors += fresh_watch.errors
    watch.outside += fresh_watch.outside
    fresh.close()

    # Back: the start page, the album, a photo; Back closes the photo, Back again leaves the album.
    back, back_watch = open_page(context, start, base)
    back.goto(album_url)
    back.locator(".photos .grid .item a.tile").nth(0).click()
    back.wait_for_function("() => document.querySelector('dialog.viewer').open")
    back.go_back()
    back.wait_for_function("() => !document.querySelector('dialog.viewer').open")
    checks.check(f"{tag}: Back closes the photo view and stays on the album",
                 back.url.split("#")[0] == album_url and not viewer_open(back), back.url)
    back.go_back()
    back.wait_for_load_state("load")
    before = start if album_url != start else "about:blank"
    checks.check(f"{tag}: Back again returns to the page before the album", back.url.split("#")[0] == before, back.url)
    watch.errors += back_watch.errors
    watch.outside += back_watch.outside
    back.close()

    # Search: a word of a photo's title finds it, and the result opens the photo view.
    word = max(re.findall(r"[A-Za-z]{4,}", first_title) or [first_title], key=len)
    search = page.locator("#search-box")
    search.fill(word)
    page.wait_for_function("() => !document.getElementById('search-results').hidden")
    page.wait_for_function("() => document.querySelectorAll('#search-results .item').length > 0")
    titles = page.eval_on_selector_all("#search-results .item .title", "spans => spans.map(s => s.textContent)")
    checks.check(f"{tag}: search finds a photo by a word of its title ({word!r})", first_title in titles, str(titles[:5]))
    axe_check(checks, axe, page, f"{tag}: search results have no serious axe violation")
    if shots:
        page.screenshot(path=os.path.join(shots, f"{name}-search.png"))
    index = titles.index(first_title) if first_title in titles else 0
    page.locator("#search-results .item a.tile").nth(index).click()
    page.wait_for_function("() => document.querySelector('dialog.viewer') && document.querySelector('dialog.viewer').open")
    checks.check(f"{tag}: a search result opens the photo view",
                 page.locator(".viewer-title").inner_text().strip() == first_title, page.locator(".viewer-title").inner_text())
    page.keyboard.press("Escape")

    # Keyboard alone: Tab reaches the first photo, Enter opens it.
    keyboard, keyboard_watch = open_page(context, album_url, base)
    reached = False
    for _ in range(60):
        keyboard.keyboard.press("Tab")
        if keyboard.evaluate("() => document.activeElement && document.activeElement.matches('.photos a.tile')"):
            reached = True
            break
    checks.check(f"{tag}: Tab reaches a photo", reached)
    if reached:
        outline = keyboard.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
        checks.check(f"{tag}: the focused photo shows its focus", outline not in ("", "none"), outline)
        keyboard.keyboard.press("Enter")
        keyboard.wait_for_function("() => document.querySelector('dialog.viewer').open")
        checks.check(f"{tag}: Enter opens the photo view", viewer_open(keyboard))
        # Tab stays in the view (a modal dialog) and reaches its buttons; Enter on "next" steps.
        keyboard.wait_for_function("() => document.activeElement && document.activeElement.closest('dialog.viewer')")
        stepped = False
        for _ in range(12):
            keyboard.keyboard.press("Tab")
            if keyboard.evaluate("() => document.activeElement.matches('.viewer-next')"):
                keyboard.keyboard.press("Enter")
                keyboard.wait_for_function("() => document.querySelector('.viewer-position').textContent.startsWith('2 of')")
                stepped = True
                break
        checks.check(f"{tag}: Tab reaches the view's next button and Enter steps", stepped)
    watch.errors += keyboard_watch.errors
    watch.outside += keyboard_watch.outside
    keyboard.close()

    # Nothing moves while the album's images load (Cumulative Layout Shift, as Chromium counts it).
    steady, steady_watch = open_page(context, album_url, base)
    steady.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    steady.wait_for_timeout(300)
    shift = steady.evaluate("""() => new Promise(resolve => {
        let total = 0;
        new PerformanceObserver(list => {
            for (const entry of list.getEntries()) if (!entry.hadRecentInput) total += entry.value;
        }).observe({type: 'layout-shift', buffered: true});
        setTimeout(() => resolve(total), 200);
    })""")
    checks.check(f"{tag}: no layout shift while the album loads (CLS {shift:.4f})", shift < 0.01, f"{shift:.4f}")
    watch.errors += steady_watch.errors
    watch.outside += steady_watch.outside
    steady.close()

    checks.check(f"{tag}: no request leaves the mirror", not watch.outside, ", ".join(watch.outside[:5]))
    checks.check(f"{tag}: no console error", not watch.errors, " | ".join(watch.errors[:5]))
    context.close()

    # Without JavaScript every photo is still reachable at full size: each tile links an image
    # file of the mirror, the photo's URL reaches its card, and the card shows its details.
    plain = browser.new_context(viewport={"width": 1280, "height": 800}, java_script_enabled=False)
    static, static_watch = open_page(plain, album_url + "#" + first_id, base)
    links = static.eval_on_selector_all(".photos a.tile", "links => links.map(a => a.href)")
    full = [link for link in links if re.search(r"/images/[^/]+\.(?:jpe?g|png|gif|webp|avif)$", link)]
    checks.check(f"{tag}: without JavaScript every tile links its full-size image",
                 links and len(full) == len(links), str([link for link in links if link not in full][:3]))
    checks.check(f"{tag}: without JavaScript the photo's URL reaches its card",
                 static.locator("#" + first_id).is_visible())
    if links:
        response = static.goto(full[0])
        checks.check(f"{tag}: without JavaScript the full-size image opens", response is not None and response.ok)
    checks.check(f"{tag}: no request leaves the mirror without JavaScript", not static_watch.outside,
                 ", ".join(static_watch.outside[:5]))
    plain.close()

    # 320 px and 4K: nothing scrolls sideways on the start page and the album.
    for width, height in ((320, 640), (3840, 2160)):
        sized = browser.new_context(viewport={"width": width, "height": height})
        edge, _ = open_page(sized, start, base)
        wide = [] if no_sideways_scroll(edge) else ["start page"]
        edge.goto(album_url)
        edge.wait_for_load_state("load")
        if not no_sideways_scroll(edge):
            wide.append("album")
        if shots and width > 1000:
            edge.screenshot(path=os.path.join(shots, f"{name}-4k-album.png"))
        checks.check(f"{tag}: nothing scrolls sideways at {width} px", not wide, ", ".join(wide))
        sized.close()

    # 375 px: nothing scrolls sideways on the start page, the album, the view and the results.
    phone = browser.new_context(viewport={"width": 375, "height": 740}, device_scale_factor=2, has_touch=True)
    small, small_watch = open_page(phone, start, base)
    wide = [] if no_sideways_scroll(small) else ["start page"]
    if shots:
        small.screenshot(path=os.path.join(shots, f"{name}-375-start.png"), full_page=True)
    small.goto(album_url)
    small.wait_for_load_state("load")
    if not no_sideways_scroll(small):
        wide.append("album")
    if shots:
        small.screenshot(path=os.path.join(shots, f"{name}-375-album.png"))
    small.locator(".photos .grid .item a.tile").nth(0).click()
    small.wait_for_function("() => document.querySelector('dialog.viewer').open")
    small.wait_for_function("() => document.querySelector('.viewer-image').complete")
    if not no_sideways_scroll(small):
        wide.append("photo view")
    chosen = small.evaluate("() => document.querySelector('.viewer-image').currentSrc")
    # The rendition that fits the phone's screen, not the largest: the narrowest candidate at
    # least as wide as the view's width in device pixels (or the widest, when none is).
    fits = small.evaluate("""() => {
        const image = document.querySelector('.viewer-image');
        const widths = (image.getAttribute('srcset') || '').split(',').map(c => c.trim().split(/\\s+/))
            .filter(c => c.length === 2 && c[1].endsWith('w')).map(c => [c[0], parseInt(c[1])]);
        if (widths.length < 2) return [true, 'no srcset'];
        const needed = parseFloat(image.sizes) * devicePixelRatio;
        const enough = widths.filter(c => c[1] >= needed).map(c => c[1]);
        const best = enough.length ? Math.min(...enough) : Math.max(...widths.map(c => c[1]));
        const chosen = widths.find(c => image.currentSrc.endsWith(c[0].replace(/^(\\.\\.\\/)+/, '')));
        return [!!chosen && chosen[1] <= best, `${image.currentSrc} (needs ${needed}px, best ${best}w)`];
    }""")
    checks.check(f"{tag}: the view at 375 px takes the rendition that fits, not a larger one", fits[0], fits[1])
    if shots:
        small.screenshot(path=os.path.join(shots, f"{name}-375-photo.png"))
    # A swipe to the left shows the next photo (pointer events, as a touch screen sends them).
    small.evaluate("""() => {
        const stage = document.querySelector('.viewer-stage');
        const send = (type, x) => stage.dispatchEvent(new PointerEvent(type, {
            bubbles: true, isPrimary: true, pointerType: 'touch', clientX: x, clientY: 300}));
        send('pointerdown', 300); send('pointermove', 200); send('pointerup', 80);
    }""")
    swiped = small.evaluate("() => document.querySelector('.viewer-position').textContent")
    checks.check(f"{tag}: a swipe to the left shows the next photo", swiped.startswith("2 of"), swiped)
    small.keyboard.press("Escape")
    small.locator("#search-box").fill(word)
    small.wait_for_function("() => document.querySelectorAll('#search-results .item').length > 0")
    if not no_sideways_scroll(small):
        wide.append("search results")
    checks.check(f"{tag}: nothing scrolls sideways at 375 px", not wide, ", ".join(wide))
    checks.check(f"{tag}: the view at 375 px loads an image of the mirror", chosen.startswith(base), chosen)
    checks.check(f"{tag}: no console error at 375 px", not small_watch.errors, " | ".join(small_watch.errors[:5]))
    phone.close()

    if shots:
        dark = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme="dark")
        night, _ = open_page(dark, album_url, base)
        night.screenshot(path=os.path.join(shots, f"{name}-dark-album.png"))
        night.locator(".photos .grid .item a.tile").nth(0).click()
        night.wait_for_function("() => document.querySelector('dialog.viewer').open")
        night.wait_for_function("() => document.querySelector('.viewer-image').complete")
        night.screenshot(path=os.path.join(shots, f"{name}-dark-photo.png"))
        night.goto(start)
        night.wait_for_load_state("load")
        night.screenshot(path=os.path.join(shots, f"{name}-dark-start.png"), full_page=True)
        dark.close()


def open_photo(page, title):
    """Opens the photo view of the card titled `title` on the page; returns whether it opened."""
    cards = page.locator(".photos .grid .item")
    for number in range(cards.count()):
        if cards.nth(number).locator(".title").inner_text().strip() == title:
            cards.nth(number).locator("a.tile").click()
            page.wait_for_function("() => document.querySelector('dialog.viewer').open")
            page.wait_for_function("() => document.querySelector('.viewer-image').complete")
            return True
    return False


def run_exif(browser, checks, name, mode, base, shots):
    """What a photo's own metadata adds to the site (issue 39), on the gallery of
    EmbeddedMetadataSyncTests: the photo view's details, the order by date, search."""
    tag = f"{name} ({mode})"
    start = base + "index.html"
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page, watch = open_page(context, start, base)
    axe = Axe()
    opened = open_photo(page, "Harbour at dusk")
    checks.check(f"{tag}: the photo with no title on its page shows its IPTC title", opened)
    if opened:
        info = page.locator(".viewer-info").inner_text()
        for shown in ("Taken", "20 April 2008, 19:12", "Camera", "Canon EOS 400D DIGITAL", "Exposure",
                      "18\u00a0mm · f/3.5 · 0.4\u00a0s · ISO\u00a0100", "Location", "43.29650° N, 5.36980° E",
                      "Boats back in before the storm", "© 2008 A. Photographer"):
            checks.check(f"{tag}: the photo view shows {shown!r}", shown in info, info[:300])
        caption_first = info.find("Boats back") < info.find("Taken") < info.find("© 2008")
        checks.check(f"{tag}: the details follow the caption, the copyright comes after them", caption_first, info[:300])
        axe_check(checks, axe, page, f"{tag}: photo view with EXIF has no serious axe violation")
        if shots:
            page.screenshot(path=os.path.join(shots, f"{name}-photo.png"))
        page.keyboard.press("Escape")
        page.wait_for_function("() => !document.querySelector('dialog.viewer').open")

    # Order by date taken: newest first puts the photo of 2008-04-20 before the one of 2008-01-22.
    def order():
        return page.eval_on_selector_all(".photos .grid .item .title", "spans => spans.map(s => s.textContent.trim())")
    before = order()
    visible = page.locator("#sort-order").is_visible()
    checks.check(f"{tag}: an album of dated photos offers to order them by date", visible)
    if visible:
        page.select_option("#sort-order", "-taken")
        newest = order()
        dated = [title for title in newest if title in ("Harbour at dusk", "Blinds in the sun")]
        checks.check(f"{tag}: newest first puts April before January", dated == ["Harbour at dusk", "Blinds in the sun"], str(newest))
        checks.check(f"{tag}: photos without a date come after the dated ones", newest[-1] == "Aqua", str(newest))
        page.select_option("#sort-order", "taken")
        oldest = [title for title in order() if title in ("Harbour at dusk", "Blinds in the sun")]
        checks.check(f"{tag}: oldest first puts January before April", oldest == ["Blinds in the sun", "Harbour at dusk"], str(oldest))
        # The view steps in the order shown.
        page.locator(".photos .grid .item a.tile").nth(0).click()
        page.wait_for_function("() => document.querySelector('dialog.viewer').open")
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => document.querySelector('.viewer-position').textContent.startsWith('2 of')")
        checks.check(f"{tag}: the photo view steps through the photos in date order",
                     page.locator(".viewer-title").inner_text().strip() == "Harbour at dusk", page.locator(".viewer-title").inner_text())
        page.keyboard.press("Escape")
        page.wait_for_function("() => !document.querySelector('dialog.viewer').open")
        page.select_option("#sort-order", "")
        checks.check(f"{tag}: the source's order comes back", order() == before, str(order()))
        axe_check(checks, axe, page, f"{tag}: the album with its order control has no serious axe violation")

    # Search by keyword, camera and year.
    for query, expected in (("storm", "Harbour at dusk"), ("EOS 350D", "Blinds in the sun"), ("2008", "Blinds in the sun")):
        page.locator("#search-box").fill(query)
        page.wait_for_function("query => document.querySelector('.results-count').textContent.includes(query)", arg=query)
        titles = page.eval_on_selector_all("#search-results .item .title", "spans => spans.map(s => s.textContent)")
        checks.check(f"{tag}: search finds {expected!r} by {query!r}", expected in titles, str(titles))
    page.locator("#search-box").fill("")
    checks.check(f"{tag}: no request outside the mirror (EXIF)", not watch.outside, " | ".join(watch.outside[:5]))
    checks.check(f"{tag}: no console error (EXIF)", not watch.errors, " | ".join(watch.errors[:5]))
    context.close()

    if shots:
        phone = browser.new_context(viewport={"width": 375, "height": 740}, device_scale_factor=2, has_touch=True)
        small, _ = open_page(phone, start, base)
        if open_photo(small, "Harbour at dusk"):
            small.evaluate("() => { const panel = document.querySelector('.viewer-panel'); panel.scrollTop = panel.scrollHeight; }")
            checks.check(f"{tag}: nothing scrolls sideways in the photo view at 375 px", no_sideways_scroll(small))
            small.screenshot(path=os.path.join(shots, f"{name}-375-photo.png"))
        phone.close()
        dark = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme="dark")
        night, _ = open_page(dark, start, base)
        if open_photo(night, "Blinds in the sun"):
            night.screenshot(path=os.path.join(shots, f"{name}-dark-photo.png"))
        night.keyboard.press("Escape")
        night.select_option("#sort-order", "-taken")
        night.screenshot(path=os.path.join(shots, f"{name}-dark-album.png"), full_page=True)
        dark.close()


def main(arguments):
    shots = None
    if arguments[:1] == ["--screenshots"]:
        shots = arguments[1]
        os.makedirs(shots, exist_ok=True)
        arguments = arguments[2:]
    mirrors = [argument.split("=", 1) for argument in arguments]
    if not mirrors or any(len(pair) != 2 for pair in mirrors):
        print(__doc__)
        return 2
    if not os.access(CHROMIUM, os.X_OK):
        print(f"missing: chromium at {CHROMIUM} (apt-get install chromium)")
        return 2
    checks = Checks()
    started = time.monotonic()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        for name, directory in mirrors:
            directory = os.path.abspath(directory)
            file_base = "file://" + urllib.parse.quote(directory) + "/"
            if name.startswith("exif"):
                run_exif(browser, checks, name, "file://", file_base, shots)
                continue
            run_mirror(browser, checks, name, directory, "file://", file_base, shots)
            server, http_base = serve(directory)
            try:
                run_mirror(browser, checks, name, directory, "http", http_base, None)
            finally:
                server.shutdown()
        browser.close()
    print(f"browser checks took {time.monotonic() - started:.1f} s")
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
