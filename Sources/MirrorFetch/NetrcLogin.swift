import Foundation

/// A login and password from a `.netrc` file (`--netrc`), for one host.
///
/// Written by hand: the format is a handful of whitespace-separated tokens
/// (`machine`, `default`, `login`, `password`, `account`, `macdef`), and no Swift package reads it.
package struct NetrcLogin: Sendable, Equatable {
    /// The user name.
    package var login: String
    /// The password: sent as HTTP Basic to its host only, never written anywhere.
    package var password: String

    /// A login `login` with `password`.
    package init(login: String, password: String) {
        self.login = login
        self.password = password
    }

    /// The netrc file `--netrc` reads: `$NETRC`, else `~/.netrc`.
    package static func defaultPath(environment: [String: String]) -> String {
        if let path = environment["NETRC"], !path.isEmpty { return path }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.netrc"
    }

    /// The login for `host` in the netrc file at `path` (its `machine` entry, else `default`),
    /// or nil when it has none. Throws a one-line error naming the file when it cannot be read.
    package static func read(file path: String, host: String) throws(RequestIdentity.Error) -> NetrcLogin? {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RequestIdentity.Error("--netrc: \(path) cannot be read (set NETRC or create ~/.netrc)")
        }
        return parse(String(decoding: data, as: UTF8.self), host: host)
    }

    /// The login for `host` in netrc `text`.
    package static func parse(_ text: String, host: String) -> NetrcLogin? {
        let host = host.lowercased()
        var matched: NetrcLogin?
        var fallback: NetrcLogin?
        // The entry being read: nil outside an entry, "" for `default`.
        var machine: String?
        var login = ""
        var password = ""
        func close() {
            guard let name = machine else { return }
            let entry = NetrcLogin(login: login, password: password)
            if name.isEmpty {
                if fallback == nil { fallback = entry }
            } else if name.lowercased() == host, matched == nil {
                matched = entry
            }
            machine = nil
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var index = 0
        var tokens: [Substring] = []
        var inMacro = false
        while index < lines.count {
            let line = lines[index]
            index += 1
            if inMacro {
                if line.trimmingSpaces.isEmpty { inMacro = false }
                continue
            }
            tokens = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            var position = 0
            func next() -> String {
                defer { position += 1 }
                return position < tokens.count ? String(tokens[position]) : ""
            }
            while position < tokens.count {
                let token = next()
                switch token {
                case "machine":
                    close()
                    machine = next()
                    login = ""
                    password = ""
                case "default":
                    close()
                    machine = ""
                    login = ""
                    password = ""
                case "login": login = next()
                case "password": password = next()
                case "account": _ = next()
                case "macdef":
                    close()
                    inMacro = true
                    position = tokens.count
                default:
                    if token.hasPrefix("#") { position = tokens.count }
                }
            }
        }
        close()
        return matched ?? fallback
    }
}
