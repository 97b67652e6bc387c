import Foundation
import Mustache
import Testing

@testable import MirrorCore
@testable import MirrorPublish

/// The page template renders as swift-mustache renders its text as written: the escaping's
/// pragma line put before it (`PageEscaping`) changes no byte of any template's output.
@Suite("The page template's escaping")
struct SiteTemplateTests {
    static let hostile = [
        "", "plain", "<img src=x onerror=alert(1)>\"'&", "a\r\n<b>\r\n", "café <Straße> & \"ü\" 'é'",
        // A `<` joined to a combining mark, or after a prepended mark, is no `<` to swift-mustache.
        "<\u{301}a>", "a\u{600}<b", "&\u{200D}x", "\"\u{20DD}", "👩‍👩‍👧 & 🇫🇷 <", "\u{0}<\u{7F}>", "&amp; &lt;",
    ]

    @Test("values are escaped as swift-mustache's HTML escaping escapes them, byte for byte")
    func escaping() throws {
        let plain = try MustacheTemplate(string: "{{value}}")
        var values = Self.hostile
        // Every short string of a few ASCII, accented and combining characters.
        let pieces = ["<", ">", "&", "\"", "'", "a", "é", "\u{301}", "\u{600}", "\r", "\n", "💡"]
        for first in pieces {
            for second in pieces {
                for third in pieces { values.append(first + second + third) }
            }
        }
        for value in values {
            let expected = plain.render(["value": value])
            #expect(Array(PageEscaping().escapeText(value).utf8) == Array(expected.utf8), "\(value.unicodeScalars.map(\.value))")
        }
    }

    @Test(
        "a template renders as its own text renders, whatever its first line",
        arguments: [
            "{{title}}", "", "\n{{title}}\n", "{{#items}}\n{{title}}\n{{/items}}\n", "  {{#flag}}\n  a\n  {{/flag}}\nb",
            "{{! a comment }}\n<p>{{title}}</p>", "{{=<% %>=}}\n<%title%> <%&title%>\n", "{{%CONTENT_TYPE:TEXT}}\n{{title}}",
            "line\r\n{{title}}\r\n", "{{title}}{{{title}}}{{&title}}{{#items}}{{.}}{{/items}}",
            "{{^missing}}\n none\n{{/missing}}",
        ])
    func sameOutput(source: String) throws {
        let template = try SiteTemplate(files: ["page.mustache": Array(source.utf8)], origin: "test")
        for title in Self.hostile {
            let context: [String: Any] = ["title": title, "items": [["title": "x<"], ["title": title]], "flag": true]
            let expected = try MustacheTemplate(string: source).render(context)
            #expect(Array(template.page.render(context).utf8) == Array(expected.utf8))
        }
    }

    @Test("a template that does not parse is refused with the line it was written with")
    func errors() throws {
        #expect(throws: PublishError.self) { try SiteTemplate(files: ["page.mustache": Array("{{#a}}".utf8)], origin: "t") }
        let source = "a\n{{#b}}\n{{/c}}"
        var message = ""
        do {
            _ = try SiteTemplate(files: ["page.mustache": Array(source.utf8)], origin: "t")
        } catch {
            message = error.message
        }
        var plainError = "none"
        do { _ = try MustacheTemplate(string: source) } catch { plainError = "\(error)" }
        #expect(message.contains(plainError), "\(message)")
    }
}
