import Foundation

/// Settings of the generated site.
public struct PublishConfiguration: Sendable {
    /// Images per generated page. Default: 60.
    public var itemsPerPage: Int = 60
    /// `--template DIR`: a template directory to use instead of the built-in one. Default: nil.
    package var templateDirectory: URL?
    /// `--max-delete`: items of the previous manifest one run may delete. Default: 50 %.
    package var maxDelete: DeleteLimit = .default
    /// `--strip-location`: no photo's GPS position in the manifest, the site, its search index
    /// or the store's index. Default: false (positions kept).
    package var stripLocation = false

    /// Site settings: `itemsPerPage` (default 60), `templateDirectory` (default nil: built in),
    /// `maxDelete` (default 50 %).
    public init(itemsPerPage: Int = 60, templateDirectory: URL? = nil, maxDelete: DeleteLimit = .default) {
        self.itemsPerPage = itemsPerPage
        self.templateDirectory = templateDirectory
        self.maxDelete = maxDelete
    }
}
