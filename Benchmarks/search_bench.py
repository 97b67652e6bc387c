#!/usr/bin/env python3
"""How fast a mirror's search answers in Chromium, from file:// (issue 26).

Usage: python3 Benchmarks/search_bench.py MIRROR_DIR [QUERY ...]

Opens MIRROR_DIR/index.html in headless Chromium (/usr/bin/chromium through Playwright) and
times, inside the page (performance.now()):
- loading assets/search-index.js alone, as a classic script (parse and run);
- the first search through the search box: loading the index, preparing its texts, the query,
  and the results drawn (what a person waits for after typing the first word);
- later searches (the index loaded): the query and the results drawn, each query once, median.
Prints a Markdown table. Queries default to words of the feed regime's titles ("Image N").
"""
import os
import statistics
import sys
import urllib.parse

from playwright.sync_api import sync_playwright

SEARCH = """query => new Promise(resolve => {
  const input = document.getElementById('search-box');
  const status = document.querySelector('#search-results .results-count');
  const started = performance.now();
  const observer = new MutationObserver(() => {
    observer.disconnect();
    resolve([performance.now() - started, status.textContent]);
  });
  observer.observe(status, {childList: true, characterData: true, subtree: true});
  input.value = query;
  input.form.requestSubmit();
})"""

LOAD = """() => new Promise((resolve, reject) => {
  const script = document.createElement('script');
  const started = performance.now();
  script.src = 'assets/search-index.js?' + Math.random();
  script.onload = () => resolve([performance.now() - started, window.catalogMirrorSearch.photos.length / 7]);
  script.onerror = reject;
  document.head.appendChild(script);
})"""


def main(arguments):
    if not arguments:
        print(__doc__)
        return 2
    mirror = os.path.abspath(arguments[0])
    queries = arguments[1:] or ["image 4242", "99999", "image 5", "7", "nothing-matches-this"]
    index = os.path.join(mirror, "assets", "search-index.js")
    url = "file://" + urllib.parse.quote(mirror) + "/index.html"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), headless=True, args=["--no-sandbox"])
        loads = []
        for _ in range(3):
            page = browser.new_page()
            page.goto(url)
            loads.append(page.evaluate(LOAD))
            page.close()
        firsts = []
        later = []
        answers = []
        for round_ in range(3):
            page = browser.new_page()
            page.goto(url)
            page.wait_for_load_state("load")
            first, answer = page.evaluate(SEARCH, queries[0] + " " * round_)
            firsts.append(first)
            if round_ == 0:
                answers.append((queries[0], answer))
            for query in queries[1:]:
                elapsed, answer = page.evaluate(SEARCH, query + " " * round_)
                later.append(elapsed)
                if round_ == 0:
                    answers.append((query, answer))
            page.close()
        browser.close()
    photos = loads[0][1]
    print(f"| photos | index MB | load index ms (median of 3) | first search ms (load + prepare + query, median of 3) "
          f"| later query ms (median of {len(later)}) | slowest later query ms |")
    print("|---|---|---|---|---|---|")
    print(f"| {photos:,.0f} | {os.path.getsize(index) / 1e6:.1f} | {statistics.median(l[0] for l in loads):.0f} | "
          f"{statistics.median(firsts):.0f} | {statistics.median(later):.1f} | {max(later):.1f} |")
    print()
    for query, answer in answers:
        print(f"- `{query}`: {answer}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
