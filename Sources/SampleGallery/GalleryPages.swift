import Foundation

/// The documents the gallery serves. Image references come in every form a real site uses:
/// relative (`image?3`), root-relative, absolute, `srcset`, `<picture><source>`, lazy `data-src`,
/// and `<a href>` to image files; so a mirror has to resolve and merge them all.
enum GalleryPages {
    static func escape(_ text: String) -> String {
        var out = ""
        for char in text {
            switch char {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(char)
            }
        }
        return out
    }

    static func page(_ number: Int, of catalog: GalleryCatalog, origin: String) -> String {
        let start = (number - 1) * catalog.perPage
        let entries = catalog.entries[min(start, catalog.entries.count)..<min(start + catalog.perPage, catalog.entries.count)]
        var html = """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>\(escape(catalog.title)) — page \(number)</title>
            <link rel="alternate" type="application/rss+xml" title="Feed" href="feed.rss">
            <link rel="alternate" type="application/json" title="Listing" href="/gallery/images">

            """
        if number < catalog.pageCount { html += "<link rel=\"next\" href=\"?page=\(number + 1)\">\n" }
        html += "<script>document.write('<img src=\"/gallery/tracker.gif\">')</script>\n"
        html += "</head><body onload=\"track()\"><h1>\(escape(catalog.title))</h1>\n<div class=\"grid\">\n"
        for entry in entries {
            let name = escape(entry.name)
            switch entry.id % 5 {
            case 0:
                html +=
                    "<figure data-price=\"\(entry.price)\"><img src=\"image?\(entry.id)\" alt=\"\(name)\"><figcaption>\(name)</figcaption></figure>\n"
            case 1:
                html +=
                    "<figure data-price=\"\(entry.price)\"><img src=\"\(origin)/gallery/image?\(entry.id)\" alt=\"\(name)\"></figure>\n"
            case 2:
                html +=
                    "<figure data-price=\"\(entry.price)\"><picture><source srcset=\"/gallery/image?\(entry.id) 1x, ./image?\(entry.id)#zoom 2x\"><img src=\"/gallery/./image?\(entry.id)\" alt=\"\(name)\"></picture></figure>\n"
            case 3:
                html +=
                    "<figure data-price=\"\(entry.price)\"><img class=\"lazy\" data-src=\"image?\(entry.id)\" alt=\"\(name)\"></figure>\n"
            default:
                html +=
                    "<figure data-price=\"\(entry.price)\"><img srcset=\"HTTP://\(origin.dropFirst(7))/gallery/image?\(entry.id) 320w\" alt=\"\(name)\"></figure>\n"
            }
        }
        html += "</div>\n<p><a href=\"/gallery/private/preview.png\">Private preview</a></p>\n<nav>"
        for page in 1...catalog.pageCount {
            html += page == number ? " <b>\(page)</b>" : " <a href=\"?page=\(page)\">\(page)</a>"
        }
        html += "</nav>\n</body></html>\n"
        return html
    }

    static func rss(_ catalog: GalleryCatalog, origin: String) -> String {
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/">
            <channel><title>\(escape(catalog.title))</title><link>\(origin)/gallery/</link><description>Sample images</description>

            """
        for entry in catalog.entries {
            xml += """
                <item><title>\(escape(entry.name))</title><link>\(origin)/gallery/?image=\(entry.id)</link>
                <description>\(escape("<p>\(entry.name), price \(entry.price)</p>"))</description>
                <media:content url="\(origin)/gallery/image?\(entry.id)" medium="image"/></item>

                """
        }
        xml += "</channel></rss>\n"
        return xml
    }

    /// Every entry three times, shuffled with a fixed seed (stable across runs).
    static func listing(_ catalog: GalleryCatalog, origin: String) -> String {
        var rows = catalog.entries.flatMap { entry in
            Array(
                repeating:
                    "{\"name\": \"\(jsonEscape(entry.name))\", \"url\": \"\(origin)/gallery/image?\(entry.id)\", \"price\": \"\(entry.price)\"}",
                count: 3)
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in stride(from: rows.count - 1, to: 0, by: -1) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            rows.swapAt(index, Int(state >> 33) % (index + 1))
        }
        return "[\n" + rows.joined(separator: ",\n") + "\n]\n"
    }

    /// An IMF-fixdate (RFC 9110 section 5.6.7).
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    static func jsonEscape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
