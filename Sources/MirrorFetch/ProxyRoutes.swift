import AsyncHTTPClient
import Foundation
import MirrorCore

/// A forward proxy: `http://[user:password@]host[:port]` (requests are tunnelled with CONNECT)
/// or `socks5://host[:port]`.
public struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    /// How the proxy is spoken to.
    package enum Kind: String, Sendable, Hashable {
        /// An HTTP proxy, spoken to with CONNECT.
        case http
        /// A SOCKS5 proxy (no credentials).
        case socks5
    }

    /// How the proxy is spoken to. Default from the URL's scheme: `http`.
    package var kind: Kind
    /// The proxy's host name or address, lower-cased.
    package var host: String
    /// The proxy's port. Default: 1080, as curl.
    package var port: Int
    /// The user name from the URL, if any (sent as `Proxy-Authorization: Basic`).
    package var username: String?
    /// The password from the URL; used for this run's requests only, never saved.
    package var password: String?

    /// Parses a proxy URL as curl does: a missing scheme means `http://`, a missing port 1080.
    /// Nil when `text` names no usable proxy.
    public init?(_ text: String) {
        var rest = text.trimmingSpaces
        var kind = Kind.http
        if let range = rest.range(of: "://") {
            switch rest[..<range.lowerBound].lowercased() {
            case "http": kind = .http
            case "socks5", "socks5h": kind = .socks5
            default: return nil
            }
            rest = String(rest[range.upperBound...])
        }
        rest = String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            rest = String(rest[rest.index(after: at)...])
            let parts = userinfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            username = parts.first.map { PercentEncoding.decode(String($0)) }
            password = parts.count > 1 ? PercentEncoding.decode(String(parts[1])) : nil
        }
        var host = rest
        var port = 1080
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()) else { return nil }
                port = number
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = String(rest[..<colon])
            guard let number = Int(rest[rest.index(after: colon)...]) else { return nil }
            port = number
        }
        guard !host.isEmpty, (1...65535).contains(port) else { return nil }
        self.kind = kind
        self.host = host.lowercased()
        self.port = port
    }

    /// The proxy as async-http-client takes it.
    var clientProxy: HTTPClient.Configuration.Proxy {
        switch kind {
        case .socks5:
            return .socksServer(host: host, port: port)
        case .http:
            let authorization = username.map { HTTPClient.Authorization.basic(username: $0, password: password ?? "") }
            return .server(host: host, port: port, authorization: authorization)
        }
    }

    /// True when the URL carried credentials.
    package var hasCredentials: Bool { username != nil || password != nil }

    /// The URL without its credentials, fit for settings and messages.
    public var description: String { "\(kind.rawValue)://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
}

/// Which proxy each request goes through: `--proxy`, else `https_proxy`/`http_proxy`/
/// `all_proxy` from the environment, with `no_proxy` hosts reached directly.
package struct ProxyRoutes: Sendable, Equatable {
    /// The proxy for `http://` URLs. Default: none.
    package var http: ProxyServer?
    /// The proxy for `https://` URLs. Default: none.
    package var https: ProxyServer?
    /// `no_proxy` entries: `*` (every host), a host name (itself and its subdomains, a leading
    /// dot allowed) or an IP address. Default: none.
    package var noProxy: [String] = []

    /// Routes through `http` and `https` (default: none), skipping the `noProxy` hosts.
    package init(http: ProxyServer? = nil, https: ProxyServer? = nil, noProxy: [String] = []) {
        self.http = http
        self.https = https
        self.noProxy = noProxy
    }

    /// The routes for `--proxy option` (nil: not given; empty: no proxy at all) and the
    /// environment, read as curl reads it: lower-case names first, then upper-case.
    ///
    /// `--proxy` wins over `http_proxy`, `https_proxy` and `all_proxy`; `no_proxy` applies
    /// either way.
    /// - Throws: ``Error`` naming the option or variable whose value is not a proxy URL.
    package static func resolve(option: String?, environment: [String: String]) throws(ProxyRoutes.Error) -> ProxyRoutes {
        func variable(_ name: String) -> String? {
            for key in [name, name.uppercased()] {
                if let value = environment[key]?.trimmingSpaces, !value.isEmpty { return value }
            }
            return nil
        }
        func server(_ text: String, from origin: String) throws(ProxyRoutes.Error) -> ProxyServer {
            guard let server = ProxyServer(text) else {
                throw Error(
                    "\(origin) \"\(ProxyRoutes.redacted(text))\" is not a proxy URL (use http://host:port or socks5://host:port)")
            }
            return server
        }
        let noProxy = (variable("no_proxy") ?? "").split(separator: ",").map { $0.trimmingSpaces.lowercased() }
            .filter { !$0.isEmpty }
        if let option {
            if option.trimmingSpaces.isEmpty { return ProxyRoutes() }
            let proxy = try server(option, from: "--proxy")
            return ProxyRoutes(http: proxy, https: proxy, noProxy: noProxy)
        }
        let all = try variable("all_proxy").map { (text) throws(ProxyRoutes.Error) in try server(text, from: "all_proxy") }
        let http = try variable("http_proxy").map { (text) throws(ProxyRoutes.Error) in try server(text, from: "http_proxy") }
        let https = try variable("https_proxy").map { (text) throws(ProxyRoutes.Error) in try server(text, from: "https_proxy") }
        return ProxyRoutes(http: http ?? all, https: https ?? all, noProxy: noProxy)
    }

    /// The proxy `url` goes through, or nil to connect directly.
    package func proxy(for url: CanonicalURL) -> ProxyServer? {
        guard let proxy = url.scheme == "https" ? https : http else { return nil }
        return bypasses(url.host) ? nil : proxy
    }

    /// True when `no_proxy` names `host` (or a domain it is in).
    func bypasses(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: ["[", "]"])
        for entry in noProxy {
            if entry == "*" { return true }
            var name = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            name = name.trimmingCharacters(in: ["[", "]"])
            if host == name || host.hasSuffix("." + name) { return true }
        }
        return false
    }

    /// `text` with any password replaced by `***`, for messages.
    static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return String(text.prefix(200)) }
        let start = text.range(of: "://")?.upperBound ?? text.startIndex
        return String((text[..<start] + "***" + text[at...]).prefix(200))
    }

    /// A proxy setting that cannot be used (exit 2), in one line naming it.
    package struct Error: Swift.Error, Sendable, CustomStringConvertible {
        /// What is wrong and with which setting, in one line.
        package let message: String
        init(_ message: String) { self.message = message }
        package var description: String { message }
    }
}
