import Testing

@testable import MirrorMarkup

@Suite("JavaScript tokens and literals")
struct JavaScriptTokenizerTests {
    typealias Token = JavaScriptTokenizer.Token

    private func strings(_ source: String) -> [String] {
        JavaScriptTokenizer.tokens(Array(source.utf8)).compactMap {
            if case .string(let text) = $0 { text } else { nil }
        }
    }

    @Test("string escapes: \\n, \\xHH, \\uHHHH, surrogate pairs, \\u{...}, octal, line continuations")
    func escapes() {
        #expect(
            strings(#"'a\'b' "c\"d\\e" 'x\x41y' "\u00e9\u0027" '\uD83D\uDE00' '\u{1F600}' '\101' 'a\/b'"#) == [
                "a'b", "c\"d\\e", "xAy", "é'", "😀", "😀", "A", "a/b",
            ])
        #expect(strings("'one \\\ntwo'") == ["one two"])
        #expect(strings(#"'\uD83D' '\q'"#) == ["\u{FFFD}", "q"])
        // An unterminated string ends with its line; the next line is read as code.
        #expect(strings("'open\nvar b = 'b.jpg'") == ["open", "b.jpg"])
    }

    @Test("template literals: a string without ${}, unknown with one, nested braces inside")
    func templates() {
        #expect(strings("var a = `img/a.jpg`;") == ["img/a.jpg"])
        let tokens = JavaScriptTokenizer.tokens(Array("x = `a${ {b: 'c.jpg'}.b }d`; y = 'e.jpg'".utf8))
        #expect(tokens.filter { $0 == .unknown }.count == 2)
        #expect(strings("x = `a${ {b: 'c.jpg'}.b }d`; y = 'e.jpg'") == ["c.jpg", "e.jpg"])
        #expect(strings("x = `${`${'in.jpg'}`}`; 'after.jpg'") == ["in.jpg", "after.jpg"])
    }

    @Test("comments and regular expressions hide their quotes; a division is not a regex")
    func commentsAndRegex() {
        let source = """
            // 'line.jpg'
            /* 'block.jpg' */ <!-- 'html.jpg'
            var r = /'[a"]'\\/x/g, s = 'kept.jpg';
            var d = a / 2 / b, t = "also.jpg";
            var q = (x) / 'y.jpg'.length;
            if (/^"/.test(v)) { u = 'third.jpg' }
            """
        #expect(strings(source) == ["kept.jpg", "also.jpg", "y.jpg", "third.jpg"])
    }

    @Test("numbers, names and punctuators")
    func otherTokens() {
        let tokens = JavaScriptTokenizer.tokens(Array("a1 = 0x1F + 1.5e-3 - .5 + 1_000;".utf8))
        #expect(
            tokens == [
                .name("a1"), .punctuator(UInt8(ascii: "=")), .number("0x1F"), .punctuator(UInt8(ascii: "+")), .number("1.5e-3"),
                .punctuator(UInt8(ascii: "-")), .number(".5"), .punctuator(UInt8(ascii: "+")), .number("1000"),
                .punctuator(UInt8(ascii: ";")),
            ])
    }

    @Test("literals: unquoted keys, trailing commas, skipped expressions, concatenated strings")
    func literals() {
        let reader = ScriptLiteralReader(
            source: Array(
                """
                var data = [{title: "A", 'thumb': "t.jpg", big: 'b' + '.jpg', n: -3, ok: true, f: function () { return {src: 'in.jpg'} }, x: y.z(1, 2),},];
                Galleria.run('#g', {dataSource: data});
                img.src = 'loose.jpg'; icon = 'cap-' + state + '.png';
                """.utf8))
        let record = JSONValue.object([
            .init(key: "title", value: .string("A")), .init(key: "thumb", value: .string("t.jpg")),
            .init(key: "big", value: .string("b.jpg")), .init(key: "n", value: .number("-3")),
            .init(key: "ok", value: .bool(true)),
            .init(key: "f", value: .null), .init(key: "x", value: .null),
        ])
        #expect(reader.literals.first == .array([record]))
        // The object inside the skipped function body is read on its own.
        #expect(reader.literals.contains(.object([.init(key: "src", value: .string("in.jpg"))])))
        #expect(reader.looseStrings == ["#g", "loose.jpg"])
        #expect(!reader.strings.contains("cap-") && !reader.strings.contains(".png"))
    }

    @Test("blocks are not literals; deep nesting and unbalanced brackets end quietly")
    func malformed() {
        #expect(ScriptLiteralReader(source: Array("function f() { var x = 1; return 'a.jpg'; }".utf8)).literals.isEmpty)
        let deep = String(repeating: "[", count: 5_000) + "'d.jpg'" + String(repeating: "]", count: 5_000)
        #expect(ScriptLiteralReader(source: Array(deep.utf8)).literals.allSatisfy { $0.hasContent })
        #expect(ScriptLiteralReader(source: Array("var a = [{src: 'x.jpg', ".utf8)).looseStrings == ["x.jpg"])
        #expect(ScriptLiteralReader(source: Array("}}]]) 'z.jpg' {{[[(".utf8)).looseStrings == ["z.jpg"])
    }

    /// The scripts `zzuf` found that made a sync loop for ever (issue 30): an unterminated
    /// regular expression left the tokenizer on its `/`.
    static let unterminatedRegularExpressions = ["x = /a", "/[/", "/ regex", "a = (/b\\\n'c.jpg'", "/"]

    @Test("an unterminated regular expression is a division: the tokenizer moves on", arguments: unterminatedRegularExpressions)
    func unterminatedRegularExpression(script: String) throws {
        // A limit far above what the script holds, so a tokenizer that stands still fails
        // here instead of filling memory.
        let (tokens, isComplete) = JavaScriptTokenizer.tokens(Array(script.utf8), limit: 1_000)
        try #require(isComplete)
        #expect(tokens.count <= script.utf8.count)
        #expect(tokens.contains(.punctuator(UInt8(ascii: "/"))))
        let page = "<!DOCTYPE html><title>t</title><script>\(script)</script><img src=\"a.png\" alt=\"a\">"
        let scan = try HTMLScanner.scan(Array(page.utf8), url: "http://example.com/")
        // The page's image, and what the script names after the `/` (its code is read on).
        #expect(scan.images.map(\.url) == (script.contains("c.jpg") ? ["a.png", "c.jpg"] : ["a.png"]))
        #expect(!scan.scriptsIncomplete)
    }

    @Test("a line of unterminated regular expressions is searched once, not once per slash")
    func regularExpressionSearchIsLinear() {
        for line in [String(repeating: "/[", count: 50_000), "x = " + String(repeating: "/ ", count: 50_000)] {
            var tokenizer = JavaScriptTokenizer(Array(line.utf8))
            var count = 0
            // Bounded, so a tokenizer that stands still fails here instead of spinning.
            while count <= line.utf8.count, tokenizer.next() != nil { count += 1 }
            #expect(count >= 30_000 && count <= line.utf8.count)
            #expect(tokenizer.searchedBytes <= line.utf8.count)
        }
        // A regular expression that does end is still one token, whatever follows on its line.
        #expect(JavaScriptTokenizer.tokens(Array("r = /[/]a/g; s = 'b.jpg' / 2".utf8)).filter { $0 == .unknown }.count == 1)
    }

    @Test("a script whose literals would cost its length times its nesting stops at its budget, with what it read")
    func literalBudget() {
        // Sixty brackets that never close around a long run of empty arrays: every attempt
        // fails at the end of the run, from each of the sixty.
        let hostile = "var a = 'first.jpg'; " + String(repeating: "[", count: 60) + String(repeating: "[] ", count: 100_000)
        let reader = ScriptLiteralReader(source: Array(hostile.utf8))
        let (isComplete, looseStrings) = (reader.isComplete, reader.looseStrings)
        #expect(!isComplete)
        #expect(looseStrings == ["first.jpg"])
        // A real data script of many records is read whole.
        let records = (0..<20_000).map { "{url: 'img/p\($0).jpg', thumbnail: 'thumbs/p\($0).jpg', title: 'Photo \($0)'}" }
        let data = ScriptLiteralReader(source: Array(("var photos = [" + records.joined(separator: ",\n") + "];").utf8))
        let dataIsComplete = data.isComplete
        #expect(dataIsComplete)
        if case .array(let elements)? = data.literals.first {
            #expect(elements.count == 20_000)
        } else {
            Issue.record("no array")
        }
    }

    @Test("a script longer than the token budget is read up to it and says so")
    func tokenBudget() {
        let (tokens, isComplete) = JavaScriptTokenizer.tokens(Array("a b c d e".utf8), limit: 3)
        #expect(tokens == [.name("a"), .name("b"), .name("c")])
        #expect(!isComplete)
        #expect(!ScriptLiteralReader(tokens: tokens, isComplete: false).isComplete)
    }
}

@Suite("Script reader")
struct ScriptReaderTests {
    private func read(_ source: String, _ origin: ScriptReader.Origin = .inline) -> ScriptFindings {
        ScriptReader.read(Array(source.utf8), origin: origin)
    }

    @Test("galleria's data array: one photo per record, roles by field name, title from the record")
    func galleria() {
        let findings = read(
            """
            var data = [
              {title: "Alpine Lake", description: "A lake", thumb: "thumbnails/a.jpg", big: "original/a.jpg", image: "a.jpg"},
              {title: 'Fern', thumb: 'thumbnails/f.jpg', image: 'f.jpg', big: 'original/f.jpg'},
            ];
            Galleria.run('#gallery', {dataSource: data});
            """)
        #expect(findings.photos.count == 2)
        let first = findings.photos[0]
        #expect(Set(first.map(\.url)) == ["thumbnails/a.jpg", "original/a.jpg", "a.jpg"])
        #expect(first.first { $0.url == "thumbnails/a.jpg" }?.size.role == .thumbnail)
        #expect(first.first { $0.url == "a.jpg" }?.size.role == .display)
        #expect(first.first { $0.url == "original/a.jpg" }?.size.role == .full)
        #expect(first.allSatisfy { $0.title == "Alpine Lake" && $0.metadata["description"] == "A lake" })
        #expect(findings.photos[1].allSatisfy { $0.title == "Fern" })
        #expect(findings.dataFiles.isEmpty)
    }

    @Test("JSON-LD ImageObject: contentUrl the original, thumbnailUrl its thumbnail, with its size")
    func jsonLD() {
        let findings = read(
            """
            {"@context": "https://schema.org", "@type": "ImageObject", "name": "Harbour",
             "contentUrl": "/photos/harbour.jpg", "thumbnailUrl": "/photos/harbour-t.jpg", "width": 1600, "height": 1200}
            """)
        #expect(findings.photos.count == 1)
        let photo = findings.photos.first ?? []
        #expect(photo.first { $0.url == "/photos/harbour.jpg" }?.size == RenditionSize(role: .full, width: 1600, height: 1200))
        #expect(photo.first { $0.url == "/photos/harbour-t.jpg" }?.size.role == .thumbnail)
        #expect(photo.allSatisfy { $0.title == "Harbour" })
    }

    @Test("fgallery's sized pairs give width and height; its data file is named")
    func fgallery() {
        let findings = read(
            """
            var datafile = 'data.json';
            var d = {"img": ["imgs/x.jpg", [1600, 1200]], "thumb": ["thumbs/x.jpg", [150, 113]], "blur": "blurs/x.jpg", "caption": ["X", "An x."], "stamp": 1700000000};
            fetch("more.json?v=2").then(r => r.json()); load('/api/list.JSON'); var notData = 'a.json.txt';
            """)
        let photo = findings.photos.first ?? []
        #expect(photo.first { $0.url == "imgs/x.jpg" }?.size == RenditionSize(role: .display, width: 1600, height: 1200))
        #expect(photo.first { $0.url == "thumbs/x.jpg" }?.size.width == 150)
        // The blurred stand-in shown while the image loads is decoration, not a rendition.
        #expect(photo.filter(\.isDecoration).map(\.url) == ["blurs/x.jpg"])
        #expect(photo.allSatisfy { $0.title == "X" && $0.metadata == ["description": "An x."] })
        #expect(findings.dataFiles == ["data.json", "more.json?v=2", "/api/list.JSON"])
    }

    @Test("loose image strings are photos in inline scripts only; external scripts give titled records")
    func origins() {
        let source = """
            img.src = 'photos/one.jpg'; preload(['left.png', 'right.png']);
            var icon = new Element('img', {'id': 'toggle', 'src': 'cap.png'});
            var items = [{title: 'Two', src: 'photos/two.jpg'}];
            var datafile = 'data.json';
            """
        let inline = read(source)
        #expect(
            inline.photos.map { $0.map(\.url) } == [
                ["left.png"], ["right.png"], ["cap.png"], ["photos/two.jpg"], ["photos/one.jpg"],
            ])
        let external = read(source, .external)
        #expect(external.photos.map { $0.map(\.url) } == [["photos/two.jpg"]])
        #expect(external.dataFiles == ["data.json"])
    }

    @Test("data: and javascript: strings, whitespace and document URLs are no images")
    func notImages() {
        let findings = read(
            """
            var a = 'data:image/png;base64,AAAA', b = 'javascript:void(0).png', c = 'two words.jpg', d = 'page.html';
            var e = {image: 'index.html', thumb: 'style.css', src: '.jpg'};
            """)
        #expect(findings.photos.isEmpty)
    }

    @Test("a page's inline scripts add photos numbered after its markup, and name its data files")
    func pageScan() throws {
        let html = """
            <html><head><script src="lib/gallery.js"></script><script type="application/ld+json">
            {"@type": "ImageObject", "contentUrl": "full.jpg", "name": "Ld"}</script></head>
            <body><img src="shown.jpg" alt="A shown photo"><script>// the photos' data
            var photos = [{thumb: 't.jpg', full: 'f.jpg', title: 'F'}];
            fetch('list.json')</script><script type="text/template">'tpl.jpg'</script></body></html>
            """
        let scan = try HTMLScanner.scan(Array(html.utf8), url: "http://h/g/")
        #expect(scan.scriptSources == ["lib/gallery.js"])
        #expect(scan.dataFiles == ["list.json"])
        #expect(scan.images.map(\.url) == ["shown.jpg", "full.jpg", "t.jpg", "f.jpg"])
        // A lone guess (JSON-LD's one image) is a photo of its own, with no number to share.
        #expect(scan.images.map(\.photo) == [0, nil, 1, 1])
        #expect(scan.images.map(\.title) == ["A shown photo", "Ld", "F", "F"])
    }
}
