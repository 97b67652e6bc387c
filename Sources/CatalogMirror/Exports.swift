// The library is the engine on top of its stage modules; a user imports `CatalogMirror` alone
// and sees the stages' public types (the configuration, keys, reasons, the report) through it,
// as Hummingbird re-exports HummingbirdCore and NIO its NIOCore.
@_exported import MirrorCatalog
@_exported import MirrorCore
@_exported import MirrorCrawl
@_exported import MirrorEmbedded
@_exported import MirrorFetch
@_exported import MirrorMarkup
@_exported import MirrorObjectStore
@_exported import MirrorOperate
@_exported import MirrorPipeline
@_exported import MirrorPixels
@_exported import MirrorPublish
@_exported import MirrorStore
@_exported import MirrorValidate
