import Foundation
import MirrorCore

/// Cookies from a Netscape `cookies.txt` (as browsers export it and curl, wget, gallery-dl and
/// yt-dlp read it), sent by RFC 6265's rules: domain and path matching, secure cookies over
/// https only, expired cookies never.
///
/// Written by hand: the format is seven tab-separated fields a line, and no Swift package on
/// Linux reads it (Foundation's HTTPCookieStorage neither reads this file nor runs on a value).
package struct CookieJar: Sendable, Equatable {
    /// One line of the file.
    package struct Cookie: Sendable, Equatable {
        /// The domain, lower-cased, without a leading dot.
        package var domain: String
        /// True when subdomains of `domain` get the cookie too (the second field, or a leading dot).
        package var includeSubdomains: Bool
        /// The path the cookie is sent under (RFC 6265 path matching). Default `/`.
        package var path: String
        /// Sent over https only.
        package var secure: Bool
        /// Seconds since 1970 after which the cookie is not sent; nil for a session cookie (0).
        package var expires: Int64?
        /// The cookie's name.
        package var name: String
        /// The cookie's value: a secret, sent and never written anywhere.
        package var value: String
        /// Marked `#HttpOnly_` (sent all the same: this is not a browser).
        package var httpOnly: Bool
    }

    /// The cookies, in file order. Default: none.
    package var cookies: [Cookie] = []

    /// A jar holding `cookies` (default: none).
    package init(cookies: [Cookie] = []) { self.cookies = cookies }

    /// Reads `path`; lines that are not seven tab-separated fields are skipped, as curl skips
    /// them. Throws a one-line error naming the file when it cannot be read.
    package init(file path: String) throws(RequestIdentity.Error) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RequestIdentity.Error("--cookies \(path) cannot be read (check the path and its permissions)")
        }
        self.init(parsing: String(decoding: data, as: UTF8.self))
    }

    /// Parses the text of a cookies file.
    package init(parsing text: String) {
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var line = Substring(raw)
            if line.hasSuffix("\r") { line = line.dropLast() }
            var httpOnly = false
            if line.hasPrefix("#HttpOnly_") {
                httpOnly = true
                line = line.dropFirst("#HttpOnly_".count)
            } else if line.hasPrefix("#") || line.trimmingSpaces.isEmpty {
                continue
            }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 7, let expiry = Int64(fields[4].trimmingSpaces) else { continue }
            var domain = fields[0].trimmingSpaces.lowercased()
            let dotted = domain.hasPrefix(".")
            if dotted { domain.removeFirst() }
            guard !domain.isEmpty else { continue }
            let path = fields[2].trimmingSpaces
            cookies.append(
                Cookie(
                    domain: domain, includeSubdomains: dotted || fields[1].uppercased() == "TRUE",
                    path: path.hasPrefix("/") ? path : "/", secure: fields[3].uppercased() == "TRUE",
                    expires: expiry == 0 ? nil : expiry, name: String(fields[5]),
                    value: fields[6...].joined(separator: "\t"), httpOnly: httpOnly))
        }
    }

    /// The `Cookie` header for a request to `url`, or nil when no cookie applies. Cookies with
    /// longer paths come first (RFC 6265 section 5.4).
    func header(for url: CanonicalURL, now: Date) -> String? {
        let host = url.host.lowercased()
        let path = url.path.isEmpty ? "/" : url.path
        let seconds = Int64(now.timeIntervalSince1970)
        let matching = cookies.filter { cookie in
            guard host == cookie.domain || (cookie.includeSubdomains && host.hasSuffix("." + cookie.domain)) else {
                return false
            }
            if cookie.secure && url.scheme != "https" { return false }
            if let expires = cookie.expires, expires <= seconds { return false }
            return Self.pathMatches(path, cookie.path)
        }
        guard !matching.isEmpty else { return nil }
        return matching.enumerated().sorted { ($0.element.path.count, -$0.offset) > ($1.element.path.count, -$1.offset) }
            .map { "\($0.element.name)=\($0.element.value)" }.joined(separator: "; ")
    }

    /// RFC 6265 section 5.1.4.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }
}
