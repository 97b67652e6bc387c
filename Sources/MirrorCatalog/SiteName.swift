/// The name a site gives itself in every page title ("Nature Walks - Test Photo Gallery",
/// "Field Notes | Walks in Nature"): found as the part the album titles share after (or
/// before) one separator, so the albums can be titled without it and the site by it.
struct SiteName: Equatable {
    /// The shared part, e.g. "Test Photo Gallery".
    var name: String
    /// The separator between it and each album's own title, with its spaces.
    var separator: String
    /// True when the name ends the titles, false when it starts them.
    var isSuffix: Bool

    /// Separators page titles put between a page's name and the site's, most common first.
    static let separators = [" - ", " – ", " — ", " | ", " · ", " :: ", " » ", " / "]

    /// The name every one of `titles` (at least two) shares at one end after one separator.
    init?(titles: [String]) {
        guard titles.count >= 2 else { return nil }
        for separator in Self.separators {
            for isSuffix in [true, false] {
                let parts = titles.map { title -> String? in
                    let range = isSuffix ? title.range(of: separator, options: .backwards) : title.range(of: separator)
                    guard let range else { return nil }
                    let own = isSuffix ? title[..<range.lowerBound] : title[range.upperBound...]
                    let shared = isSuffix ? title[range.upperBound...] : title[..<range.lowerBound]
                    return own.trimmingSpaces.isEmpty ? nil : String(shared.trimmingSpaces)
                }
                guard let first = parts[0], !first.isEmpty, parts.allSatisfy({ $0 == first }) else { continue }
                self.init(name: first, separator: separator, isSuffix: isSuffix)
                return
            }
        }
        return nil
    }

    /// `siteTitle` (the start page's title) as the name, when every one of `titles` (at least
    /// one) carries it after (or before) one separator: a gallery with a single album.
    init?(titles: [String], siteTitle: String) {
        let site = siteTitle.trimmingSpaces
        guard !titles.isEmpty, !site.isEmpty else { return nil }
        for separator in Self.separators {
            for isSuffix in [true, false] {
                let candidate = SiteName(name: site, separator: separator, isSuffix: isSuffix)
                if titles.allSatisfy({ candidate.strip($0) != $0 }) {
                    self = candidate
                    return
                }
            }
        }
        return nil
    }

    init(name: String, separator: String, isSuffix: Bool) {
        self.name = name
        self.separator = separator
        self.isSuffix = isSuffix
    }

    /// `title` without the site's name, or `title` when it does not carry it.
    func strip(_ title: String) -> String {
        let marker = isSuffix ? separator + name : name + separator
        guard isSuffix ? title.hasSuffix(marker) : title.hasPrefix(marker) else { return title }
        let own = isSuffix ? title.dropLast(marker.count) : title.dropFirst(marker.count)
        return own.trimmingSpaces.isEmpty ? title : String(own.trimmingSpaces)
    }

    /// Whether `title` carries the site's name at its end (or start).
    func isIn(_ title: String) -> Bool { strip(title) != title || title == name }
}
