/* catalog-mirror: the photo view and the search box of a mirror's pages.
   A plain classic script (no module, no library, no request outside the mirror), so it works
   from file:// as well as from any web server. The pages work without it: every photo links to
   its full-size file; this adds to them.

   Photo view: a photo's URL is its album page with the photo's card id as the fragment
   (albums/nature.html#photo-aqua-3f2a9c1b0e). Opening a photo from the grid pushes one history
   entry, so Back closes the view; previous/next replace it, so Back does not step through every
   photo seen. The view is a <dialog>: Esc closes it and focus goes back to the photo's tile.

   Search: assets/search-index.js (a classic script assigning window.catalogMirrorSearch) is
   loaded the first time the search box is used; see SearchIndex.swift for its format.

   Order: an album whose photos say when they were taken offers to show them by date. An album
   on one page is reordered in place (the photo view then steps in that order); one on several
   pages is listed whole, in that order, from the search index. */
(function () {
  'use strict';
  var doc = document;
  var root = doc.documentElement;
  var base = root.getAttribute('data-root') || '';
  root.classList.add('js');

  var grid = null;
  var cards = [];
  var dialog = null;
  var parts = {};
  var current = -1;
  /* Whether the open view has a history entry of its own (Back closes it). */
  var ownsEntry = false;
  var hiding = false;
  var pageTitle = doc.title;

  function ready(run) {
    if (doc.readyState !== 'loading') run();
    else doc.addEventListener('DOMContentLoaded', run);
  }

  function pageName() {
    var name = location.pathname.split('/').pop();
    return name || 'index.html';
  }

  /* ---- The photo view ---- */

  function setUpViewer() {
    grid = doc.querySelector('.photos .grid');
    dialog = doc.querySelector('dialog.viewer');
    if (!grid || !dialog || typeof dialog.showModal !== 'function') return false;
    cards = Array.prototype.slice.call(grid.querySelectorAll('.item'));
    ['stage', 'image', 'previous', 'next', 'close', 'position', 'title', 'info', 'original', 'album', 'album-name']
      .forEach(function (name) { parts[name] = dialog.querySelector('.viewer-' + name); });
    grid.addEventListener('click', function (event) {
      var tile = event.target.closest && event.target.closest('a.tile');
      if (!tile || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
      var index = cards.indexOf(tile.closest('.item'));
      if (index < 0) return;
      event.preventDefault();
      show(index, 'push');
    });
    parts.previous.addEventListener('click', function () { step(-1); });
    parts.next.addEventListener('click', function () { step(1); });
    parts.close.addEventListener('click', close);
    parts.album.addEventListener('click', function (event) { event.preventDefault(); close(); });
    dialog.addEventListener('cancel', function (event) { event.preventDefault(); close(); });
    dialog.addEventListener('close', function () {
      if (hiding) return;
      /* Closed by the browser itself (a repeated Esc): bring the URL and focus in line. */
      if (current >= 0) { forget(); finish(); }
    });
    /* On the document, not the dialog: a button that became disabled (the last photo's "next")
       drops the focus to the body, and the keys must still work. */
    doc.addEventListener('keydown', function (event) {
      if (current < 0 || event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.key === 'ArrowLeft') { event.preventDefault(); step(-1); }
      else if (event.key === 'ArrowRight') { event.preventDefault(); step(1); }
    });
    var start = null;
    parts.stage.addEventListener('pointerdown', function (event) {
      start = event.isPrimary ? { x: event.clientX, y: event.clientY } : null;
    });
    parts.stage.addEventListener('pointerup', function (event) {
      if (!start) return;
      var dx = event.clientX - start.x;
      var dy = event.clientY - start.y;
      start = null;
      if (Math.abs(dx) > 40 && Math.abs(dx) > 1.5 * Math.abs(dy)) step(dx < 0 ? 1 : -1);
    });
    parts.stage.addEventListener('pointercancel', function () { start = null; });
    window.addEventListener('popstate', fromLocation);
    window.addEventListener('hashchange', fromLocation);
    window.addEventListener('resize', function () { if (current >= 0) fit(cards[current]); });
    return true;
  }

  function total() { return Number(grid.getAttribute('data-total')) || cards.length; }

  function positionOf(card) { return Number(card.getAttribute('data-position')) || cards.indexOf(card) + 1; }

  /* The width the photo is shown at: as wide as the stage, or as tall, whichever binds first;
     `sizes` tells the browser, which takes the smallest rendition of the srcset that fills it. */
  function fit(card) {
    var tile = card.querySelector('a.tile');
    var width = Number(tile.getAttribute('data-width'));
    var height = Number(tile.getAttribute('data-height'));
    var stage = parts.stage.getBoundingClientRect();
    var shown = stage.width;
    if (width > 0 && height > 0) shown = Math.min(stage.width, stage.height * width / height, width);
    parts.image.sizes = Math.max(1, Math.round(shown)) + 'px';
  }

  function show(index, how) {
    var card = cards[index];
    var tile = card.querySelector('a.tile');
    var thumbnail = tile.querySelector('img');
    var title = card.querySelector('.title').textContent;
    var image = parts.image;
    var width = tile.getAttribute('data-width');
    var height = tile.getAttribute('data-height');
    current = index;
    var opening = !dialog.open;
    if (opening) {
      hiding = false;
      dialog.showModal();
    }
    image.removeAttribute('srcset');
    image.removeAttribute('src');
    if (width && height) { image.width = Number(width); image.height = Number(height); }
    else { image.removeAttribute('width'); image.removeAttribute('height'); }
    image.alt = title;
    fit(card);
    if (thumbnail.getAttribute('srcset')) image.setAttribute('srcset', thumbnail.getAttribute('srcset'));
    image.src = tile.getAttribute('href');
    parts.title.textContent = title;
    var position = positionOf(card);
    parts.position.textContent = position + ' of ' + total();
    parts.info.textContent = '';
    var info = card.querySelector('.info');
    if (info) parts.info.appendChild(info.cloneNode(true));
    parts.original.href = tile.getAttribute('href');
    parts.album.href = pageName();
    parts['album-name'].textContent = grid.getAttribute('data-album') || 'the album';
    parts.previous.disabled = position <= 1;
    parts.next.disabled = position >= total();
    doc.title = title + ' — ' + pageTitle;
    var hash = '#' + card.id;
    if (how === 'push' && location.hash !== hash) { history.pushState(null, '', hash); ownsEntry = true; }
    else if (how === 'replace' || (how === 'push' && location.hash === hash)) history.replaceState(null, '', hash);
    var focused = doc.activeElement;
    if (opening || !focused || !dialog.contains(focused) || focused === dialog || focused.disabled) parts.close.focus();
    preload(cards[index + 1]);
  }

  function preload(card) {
    if (!card) return;
    var thumbnail = card.querySelector('a.tile img');
    var next = new Image();
    next.sizes = parts.image.sizes;
    if (thumbnail.getAttribute('srcset')) next.srcset = thumbnail.getAttribute('srcset');
    next.src = card.querySelector('a.tile').getAttribute('href');
  }

  function step(direction) {
    if (current < 0) return;
    var position = positionOf(cards[current]) + direction;
    if (position < 1 || position > total()) return;
    var index = current + direction;
    if (index >= 0 && index < cards.length) { show(index, 'replace'); return; }
    /* The album goes on on another page: open it there, in place of this entry. */
    var page = grid.getAttribute(direction > 0 ? 'data-next' : 'data-previous');
    if (page) location.replace(page + (direction > 0 ? '#view-first' : '#view-last'));
  }

  function close() {
    if (current < 0) return;
    if (ownsEntry) {
      ownsEntry = false;
      history.back(); /* popstate hides the view */
      return;
    }
    forget();
    hide();
  }

  /* The URL without the photo. */
  function forget() {
    history.replaceState(null, '', location.pathname + location.search);
    ownsEntry = false;
  }

  function hide() {
    if (current < 0) return;
    hiding = true;
    if (dialog.open) dialog.close();
    hiding = false;
    finish();
  }

  function finish() {
    var card = cards[current];
    current = -1;
    doc.title = pageTitle;
    parts.image.removeAttribute('srcset');
    parts.image.removeAttribute('src');
    if (card) {
      var tile = card.querySelector('a.tile');
      tile.focus({ preventScroll: true });
      if (tile.scrollIntoView) tile.scrollIntoView({ block: 'nearest' });
    }
  }

  /* Opens (or closes) the view the URL names: on load, Back, Forward, a link to a fragment. */
  function fromLocation(event) {
    if (!grid) return;
    var hash = decodeURIComponent(location.hash.slice(1));
    if (hash === 'view-first' || hash === 'view-last') {
      if (cards.length) show(hash === 'view-first' ? 0 : cards.length - 1, 'replace');
      return;
    }
    var card = hash ? doc.getElementById(hash) : null;
    var index = card ? cards.indexOf(card) : -1;
    if (index >= 0) {
      if (index !== current) {
        /* A link to the photo's fragment made an entry of its own, which Back leaves. */
        if (event && event.type === 'hashchange' && current < 0) ownsEntry = true;
        show(index, 'none');
      }
    } else if (current >= 0) {
      ownsEntry = false;
      hide();
    }
  }

  /* ---- Search ---- */

  var index = null;
  var loading = false;
  var waiting = [];

  function fold(text) {
    text = String(text).toLowerCase();
    /* Accents are ignored: "cafe" finds "Café". Skipped for ASCII, which is most text. */
    return /[^\x00-\x7f]/.test(text) ? text.normalize('NFD').replace(/[\u0300-\u036f]/g, '') : text;
  }

  function loadIndex(then) {
    if (index) { then(); return; }
    waiting.push(then);
    if (loading) return;
    loading = true;
    var script = doc.createElement('script');
    script.src = doc.querySelector('form.search').getAttribute('data-index');
    script.onload = function () {
      prepare(window.catalogMirrorSearch);
      var queue = waiting;
      waiting = [];
      queue.forEach(function (run) { run(); });
    };
    script.onerror = function () { loading = false; waiting = []; };
    doc.head.appendChild(script);
  }

  /* Values a photo in the index (SearchIndex.swift). */
  var FIELDS = 7;

  /* One string to search per photo: its label, its other words and its album's title. */
  function prepare(data) {
    var photos = data.photos;
    var count = photos.length / FIELDS;
    var texts = new Array(count);
    var albumOf = new Int32Array(count);
    var positionIn = new Int32Array(count);
    var photo = 0;
    data.albums.forEach(function (album, albumIndex) {
      var albumText = fold(album[0]);
      for (var position = 0; position < album[2] && photo < count; position++, photo++) {
        var at = photo * FIELDS;
        texts[photo] = fold(photos[at + 4] + ' ' + photos[at + 5]) + ' ' + albumText;
        albumOf[photo] = albumIndex;
        positionIn[photo] = position;
      }
    });
    index = { data: data, texts: texts, albumOf: albumOf, positionIn: positionIn, count: photo };
  }

  function pageFile(fileBase, number) {
    if (number === 1) return fileBase + '.html';
    return (fileBase === 'index' ? 'page' : fileBase + '-page') + '-' + number + '.html';
  }

  /* The numbers of the photos whose text holds every word of `query`. */
  function find(query, limit) {
    var words = fold(query).split(/\s+/).filter(Boolean);
    var found = [];
    var matches = 0;
    if (!words.length) return { found: found, matches: 0 };
    var texts = index.texts;
    for (var photo = 0; photo < index.count; photo++) {
      var text = texts[photo];
      var all = true;
      for (var w = 0; w < words.length; w++) {
        if (text.indexOf(words[w]) < 0) { all = false; break; }
      }
      if (all) {
        matches++;
        if (found.length < limit) found.push(photo);
      }
    }
    return { found: found, matches: matches };
  }

  function result(photo) {
    var data = index.data;
    var at = photo * FIELDS;
    var album = data.albums[index.albumOf[photo]];
    var page = Math.floor(index.positionIn[photo] / data.perPage) + 1;
    var tileFile = data.photos[at + 1];
    var anchor = data.photos[at] || tileFile.replace(/\.[^.]*$/, '');
    var item = doc.createElement('li');
    item.className = 'item';
    var figure = doc.createElement('figure');
    var link = doc.createElement('a');
    link.className = 'tile';
    link.href = base + pageFile(album[1], page) + '#photo-' + anchor;
    var image = doc.createElement('img');
    image.src = base + 'images/' + tileFile;
    if (data.photos[at + 2] > 0) { image.width = data.photos[at + 2]; image.height = data.photos[at + 3]; }
    image.alt = data.photos[at + 4];
    image.loading = 'lazy';
    link.appendChild(image);
    var caption = doc.createElement('figcaption');
    var title = doc.createElement('span');
    title.className = 'title';
    title.textContent = data.photos[at + 4];
    var where = doc.createElement('span');
    where.className = 'details';
    where.textContent = album[0];
    caption.appendChild(title);
    caption.appendChild(where);
    figure.appendChild(link);
    figure.appendChild(caption);
    item.appendChild(figure);
    return item;
  }

  function setUpSearch() {
    var form = doc.querySelector('form.search');
    var section = doc.getElementById('search-results');
    if (!form || !section) return;
    var input = form.querySelector('input');
    var list = section.querySelector('.results-grid');
    var status = section.querySelector('.results-count');
    var others = Array.prototype.slice.call(doc.querySelectorAll('main > .albums, main > .photos, main > .pages'));
    var limit = 120;
    form.hidden = false;
    function run() {
      var query = input.value.trim();
      if (!query) {
        section.hidden = true;
        list.textContent = '';
        others.forEach(function (element) { element.hidden = false; });
        return;
      }
      loadIndex(function () {
        if (input.value.trim() !== query) return;
        var answer = find(query, limit);
        var fragment = doc.createDocumentFragment();
        answer.found.forEach(function (photo) { fragment.appendChild(result(photo)); });
        list.textContent = '';
        list.appendChild(fragment);
        status.textContent = answer.matches === 0 ? 'No photo matches “' + query + '”.'
          : answer.matches + (answer.matches === 1 ? ' photo matches' : ' photos match') + ' “' + query + '”'
            + (answer.matches > limit ? ' (the first ' + limit + ' are shown).' : '.');
        section.hidden = false;
        others.forEach(function (element) { element.hidden = true; });
      });
    }
    var timer = 0;
    input.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(run, 100); });
    input.addEventListener('focus', function () { loadIndex(function () {}); });
    form.addEventListener('submit', function (event) { event.preventDefault(); clearTimeout(timer); run(); });
  }

  /* ---- Order by date taken ---- */

  function byTaken(newestFirst, takenOf) {
    return function (a, b) {
      var ta = takenOf(a);
      var tb = takenOf(b);
      /* Photos without a date keep their place after the dated ones. */
      if (!ta || !tb) return (ta ? -1 : tb ? 1 : 0) || a.order - b.order;
      if (ta === tb) return a.order - b.order;
      return (ta < tb) === newestFirst ? 1 : -1;
    };
  }

  function setUpSort() {
    var select = doc.getElementById('sort-order');
    if (!select || !grid) return;
    var first = Number(grid.getAttribute('data-first')) || 1;
    var inPlace = !grid.getAttribute('data-next') && !grid.getAttribute('data-previous');
    var original = cards.map(function (card, order) { return { card: card, order: order }; });
    var section = doc.getElementById('search-results');
    select.parentNode.hidden = false;
    select.value = '';
    function reorder(order) {
      var list = original.slice();
      if (order) list.sort(byTaken(order === '-taken', function (entry) { return entry.card.getAttribute('data-taken'); }));
      list.forEach(function (entry, position) {
        entry.card.setAttribute('data-position', first + position);
        grid.appendChild(entry.card);
      });
      cards = list.map(function (entry) { return entry.card; });
    }
    /* The whole album, from the index, in the results' place. */
    function listWhole(order) {
      var others = Array.prototype.slice.call(doc.querySelectorAll('main > .photos > .grid, main > .albums, main > .pages'));
      var list = section.querySelector('.results-grid');
      var status = section.querySelector('.results-count');
      var title = doc.getElementById('results-title');
      if (!order) {
        section.hidden = true;
        title.textContent = 'Search results';
        list.textContent = '';
        others.forEach(function (element) { element.hidden = false; });
        return;
      }
      loadIndex(function () {
        var base = grid.getAttribute('data-base');
        var start = 0;
        var album = -1;
        index.data.albums.forEach(function (entry, number) {
          if (album >= 0) return;
          if (entry[1] === base) album = number; else start += entry[2];
        });
        if (album < 0) return;
        var photos = [];
        for (var photo = start; photo < start + index.data.albums[album][2] && photo < index.count; photo++) {
          photos.push({ photo: photo, order: photo });
        }
        photos.sort(byTaken(order === '-taken', function (entry) { return index.data.photos[entry.photo * FIELDS + 6]; }));
        var fragment = doc.createDocumentFragment();
        photos.forEach(function (entry) { fragment.appendChild(result(entry.photo)); });
        list.textContent = '';
        list.appendChild(fragment);
        title.textContent = 'All photos of this album';
        status.textContent = photos.length + ' photos, by date taken, ' + (order === '-taken' ? 'newest' : 'oldest') + ' first.';
        section.hidden = false;
        others.forEach(function (element) { element.hidden = true; });
      });
    }
    select.addEventListener('change', function () {
      if (inPlace) reorder(select.value); else listWhole(select.value);
    });
  }

  ready(function () {
    setUpSearch();
    if (setUpViewer()) {
      setUpSort();
      fromLocation(null);
    }
  });
})();
