/// Where the generated site shows one photo, and what it calls it: the anchor of the photo's
/// card, the link `feed.atom` gives each entry, and the photo's label.
///
/// The site has no page of its own per photo yet: a photo is shown by its card on its album's
/// page, so its link is that page with the card's anchor (`albums/nature.html#photo-aqua-3f2a9c1b0e`).
/// This is the one place to change when a photo view of its own exists.
enum PhotoView {
    /// The `id` of the photo's card: `photo-` and the file name of its largest rendition
    /// without the extension (file names are `[a-z0-9-]` and unique in the mirror, and stay
    /// the same while the bytes do).
    static func anchor(of photo: SitePlan.Photo) -> String {
        let path = photo.original.path
        var name = path.split(separator: "/").last.map(String.init) ?? path
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
        return "photo-" + name
    }

    /// The photo's link relative to the mirror's root, given the file of the page that shows
    /// its card (`SitePlan.Page.fileName`).
    static func href(of photo: SitePlan.Photo, onPage fileName: String) -> String {
        fileName + "#" + anchor(of: photo)
    }

    /// The photo's label: its title, else its smallest rendition's, else its file name without
    /// the image extension.
    static func title(of photo: SitePlan.Photo) -> String {
        let item = photo.original
        return item.title ?? photo.display.title ?? MirrorPublisher.fileTitle(item.key)
    }
}
