import CatalogMirror
import Foundation

/// libFuzzer entry for the document-URL parser (`CanonicalURL`, the WHATWG parser in front of
/// RFC 3986 normalization), two checks per input:
/// 1. The input as text, absolute and against three bases: every key is printable ASCII, a fixed
///    point, and resolves to itself against any base.
/// 2. The input as choices that build a well-formed URL both standards read alike (lower-case
///    http(s), a DNS name or dotted IPv4 host, a non-default port, unreserved/sub-delimiter path
///    and query characters and upper-case escapes, relative paths with `.` and `..`): the key and
///    Foundation's `URL` (RFC 3986) must agree on every part.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURL(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkText(String(decoding: bytes, as: UTF8.self))
    var choices = Choices(bytes: bytes)
    compareWithFoundation(&choices)
    return 0
}

let bases = ["http://fuzz.example/a/b/c?q", "https://u:p@[::1]:8443/", "http://127.0.0.1:8080/x/y/"].compactMap {
    CanonicalURL($0)
}

func checkText(_ text: String) {
    for base in [nil] + bases.map(Optional.some) {
        guard let key = CanonicalURL(text, relativeTo: base) else { continue }
        precondition(key.string.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "not printable ASCII: \(key)")
        precondition(key.isWeb, "not http(s): \(key)")
        let again = CanonicalURL(key.string)
        precondition(again?.string == key.string, "not a fixed point: \(key) → \(again?.string ?? "nil")")
        for other in bases {
            let resolved = CanonicalURL(key.string, relativeTo: other)
            precondition(resolved?.string == key.string, "absolute key moved against \(other): \(key)")
        }
    }
}

/// Reads fuzz bytes as choices; past the end every choice is 0.
struct Choices {
    let bytes: [UInt8]
    var index = 0
    mutating func next(_ count: Int) -> Int {
        defer { index += 1 }
        return index < bytes.count ? Int(bytes[index]) % count : 0
    }
    mutating func pick(_ options: String) -> Character {
        let characters = Array(options)
        return characters[next(characters.count)]
    }
}

let letters = "abcdefghijklmnopqrstuvwxyz"
let pathCharacters = "abcXYZ019-._~!$&'()*+,;=:@"
let queryCharacters = "abcXYZ019-._~!$&()*+,;=:@/?"

func segment(_ choices: inout Choices, characters: String, maxLength: Int = 6) -> String {
    var text = ""
    for _ in 0..<choices.next(maxLength + 1) {
        if choices.next(8) == 0 {
            // An escape of a byte that is not unreserved: both sides keep it as written.
            text += String(format: "%%%02X", Array("/?#[]% \"<>^`{|}".utf8)[choices.next(15)])
        } else {
            text.append(choices.pick(characters))
        }
    }
    return text
}

func compareWithFoundation(_ choices: inout Choices) {
    let scheme = choices.next(2) == 0 ? "http" : "https"
    var host: String
    if choices.next(4) == 0 {
        host = (0..<4).map { _ in String(choices.next(256)) }.joined(separator: ".")
    } else {
        // Labels of letters and digits; the last starts with a letter, so it is not a number.
        host = (0...choices.next(3)).map { _ in
            String(choices.pick(letters))
                + (0..<choices.next(6)).map { _ in String(choices.pick(letters + "0123456789-")) }.joined()
        }.joined(separator: ".")
    }
    var authority = host
    var port: Int?
    if choices.next(3) == 0 {
        let value = 1 + (choices.next(256) << 8 | choices.next(256)) % 65535  // 1...65535
        if value != (scheme == "http" ? 80 : 443) {
            port = value
            authority += ":\(value)"
        }
    }
    var segments: [String] = []
    for _ in 0..<choices.next(5) {
        let text = segment(&choices, characters: pathCharacters)
        // A segment of dots only is a dot segment, or a near miss both standards read alike.
        if !text.isEmpty && text.allSatisfy({ $0 == "." }) { continue }
        segments.append(text)
    }
    let path = "/" + segments.joined(separator: "/")
    let query = choices.next(3) == 0 ? segment(&choices, characters: queryCharacters, maxLength: 10) : nil
    let text = scheme + "://" + authority + path + (query.map { "?" + $0 } ?? "")

    guard let key = CanonicalURL(text) else { preconditionFailure("no key for well-formed \(text)") }
    guard let url = URL(string: text) else { preconditionFailure("Foundation refuses \(text)") }
    precondition(key.string == text, "key \(key) for canonical \(text)")
    precondition(url.scheme == key.scheme, "scheme: \(text)")
    precondition(url.host(percentEncoded: true) == key.host, "host: \(text) → \(url.host(percentEncoded: true) ?? "nil")")
    precondition(url.port == key.port, "port: \(text)")
    precondition(url.path(percentEncoded: true) == key.path, "path: \(text) → \(url.path(percentEncoded: true))")
    precondition(url.query(percentEncoded: true) == key.query, "query: \(text)")

    // A relative path reference with dot segments, resolved by both (RFC 3986 5.2 and the URL
    // Standard agree on such references). Its first segment holds no ":" (RFC 3986 4.2).
    var reference: [String] = []
    for _ in 0..<(1 + choices.next(5)) {
        switch choices.next(4) {
        case 0: reference.append(".")
        case 1: reference.append("..")
        default:
            // No ":" in the first segment (whichever segment ends up first).
            let text = segment(&choices, characters: reference.isEmpty ? "abc019-_~!$&'()*+,;=@" : pathCharacters)
            if text.isEmpty || text.allSatisfy({ $0 == "." }) { continue }
            reference.append(text)
        }
    }
    let relative = reference.joined(separator: "/")
    guard !relative.isEmpty else { return }
    guard let resolved = CanonicalURL(relative, relativeTo: key),
        let foundation = URL(string: relative, relativeTo: url)?.absoluteURL.standardized
    else { preconditionFailure("no resolution of \(relative) against \(text)") }
    precondition(
        foundation.path(percentEncoded: true) == resolved.path && foundation.host(percentEncoded: true) == resolved.host,
        "resolution of \(relative) against \(text): \(resolved) vs \(foundation.absoluteString)")
}

/// SwiftPM links an executable with `main` aliased to `FuzzURL_main`; this hands control to
/// libFuzzer's driver, which parses the command line and calls the entry above.
@_cdecl("FuzzURL_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzzURL)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
