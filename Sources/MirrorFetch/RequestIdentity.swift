import Foundation
import MirrorCore

/// One request header from `--header "Name: value"` or a line of `--header @FILE`.
public struct HeaderField: Sendable, Equatable {
    /// The header's name, as given.
    package var name: String
    /// The header's value, spaces trimmed.
    package var value: String

    /// A header `name: value`.
    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses `Name: value`; nil when there is no name or no colon.
    public init?(line: String) {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon].trimmingSpaces
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }) else { return nil }
        let value = line[line.index(after: colon)...].trimmingSpaces
        guard !value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 }) else { return nil }
        self.init(name: name, value: value)
    }

    /// True for a header that carries a credential (`Authorization`, `Cookie`,
    /// `Proxy-Authorization`, or a name that says token, key, secret, session or password):
    /// it goes to the source's host only and is never saved inline.
    package var isCredential: Bool {
        let lower = name.lowercased()
        if ["authorization", "cookie", "proxy-authorization"].contains(lower) { return true }
        return ["token", "key", "secret", "session", "password", "auth"].contains { lower.contains($0) }
    }

    /// The headers of a `--header @FILE` file, one a line; blank lines and lines starting with
    /// `#` are skipped. Throws a one-line error naming the file and the line.
    package static func read(file path: String) throws(RequestIdentity.Error) -> [HeaderField] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RequestIdentity.Error("--header @\(path) cannot be read (check the path and its permissions)")
        }
        var fields: [HeaderField] = []
        for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .enumerated()
        {
            let text = line.trimmingSpaces
            if text.isEmpty || text.hasPrefix("#") { continue }
            guard let field = HeaderField(line: text) else {
                throw RequestIdentity.Error("--header @\(path) line \(number + 1) is not \"Name: value\"")
            }
            fields.append(field)
        }
        return fields
    }
}

/// What requests carry besides the crawler's own headers: `--header` fields, cookies of
/// `--cookies`, and `--netrc` credentials, each sent only where it belongs.
package struct RequestIdentity: Sendable {
    /// The host that credential headers and `--netrc` credentials belong to (the source's
    /// host, lower-cased); they are never sent to any other host, redirects included.
    /// Default: nil (credentials go nowhere).
    package var credentialHost: String?
    /// Headers given with `--header`. Default: none.
    package var headers: [HeaderField] = []
    /// Cookies read from `--cookies`. Default: none.
    package var cookies: CookieJar = CookieJar()
    /// `--netrc` login for `credentialHost`, sent as HTTP Basic. Default: nil.
    package var login: NetrcLogin?

    /// An identity sending `headers`, `cookies` and `login` (default: none of them), with
    /// credentials for `credentialHost` only.
    package init(
        credentialHost: String? = nil, headers: [HeaderField] = [], cookies: CookieJar = CookieJar(), login: NetrcLogin? = nil
    ) {
        self.credentialHost = credentialHost?.lowercased()
        self.headers = headers
        self.cookies = cookies
        self.login = login
    }

    /// The headers to add to a request for `url`: every non-credential header; credential
    /// headers and the netrc login only on `credentialHost`; the cookies whose domain, path,
    /// secure flag and expiry match.
    func fields(for url: CanonicalURL, now: Date = Date()) -> [(String, String)] {
        let own = credentialHost != nil && url.host.lowercased() == credentialHost
        var fields: [(String, String)] = []
        for header in headers where own || !header.isCredential {
            fields.append((header.name, header.value))
        }
        if own, let login, !fields.contains(where: { $0.0.lowercased() == "authorization" }) {
            let token = Data("\(login.login):\(login.password)".utf8).base64EncodedString()
            fields.append(("Authorization", "Basic \(token)"))
        }
        if let cookie = cookies.header(for: url, now: now) {
            if let index = fields.firstIndex(where: { $0.0.lowercased() == "cookie" }) {
                fields[index].1 += "; " + cookie
            } else {
                fields.append(("Cookie", cookie))
            }
        }
        return fields
    }

    /// A `--header`, `--cookies` or `--netrc` input that cannot be used (exit 2), in one line
    /// naming it.
    package struct Error: Swift.Error, Sendable, CustomStringConvertible {
        /// What is wrong and with which input, in one line.
        package let message: String
        package init(_ message: String) { self.message = message }
        package var description: String { message }
    }
}
