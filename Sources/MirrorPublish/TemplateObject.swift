import Mustache

/// An object of a page's template context (the page, a card, an album of the index, a link),
/// typed for swift-mustache rather than a `[String: Any]`.
///
/// swift-mustache 2.1.1 finds a name by casting each object of its context stack to its
/// protocols (`MustacheCustomRepresentation`, then `MustacheParent`), and renders the value it
/// finds after casting it to four more (`MustacheTemplate`, `MustacheCustomRenderable`,
/// `MustacheLambda`, `AnyOptional`) and printing it with `String(describing:)`. A dictionary is
/// a `MustacheParent` only through a conditional conformance (the slowest cast), each lookup
/// hashes the name, a text or a number fails three casts before it is printed, and a section
/// over a text or a number (`{{#caption}}`, `{{#width}}`) puts it on the stack, where every
/// name inside the section is first looked for in it through `Mirror`: the casts, many per
/// photo of every page, weighed on a cold sync. Here an object conforms to `MustacheParent`
/// itself and finds a name among its few fields by comparing it with their names (short ASCII
/// names compare as integers), and text and numbers are `MustacheCustomRenderable` values that
/// answer every lookup inside a section with nothing at once. An object is a struct of two
/// arrays, held inline by an `Any`: cast from `Any`, a class instance also goes through the
/// runtime's check for a boxed value, and costs more.
///
/// A template sees what it saw in the dictionaries (`SiteContractTests` renders every name
/// through a template naming all of them, byte for byte): the same names; text and numbers
/// rendered as `String(describing:)` printed them, and escaped the same; `Bool` values as they
/// are (a section over `false` is skipped); lists as arrays (a section repeats for each, and
/// `first()`, `count(items)`... apply); swift-mustache's transforms of text, integers and
/// dictionaries answered as they were (`uppercased(title)`, `plusone(position)`,
/// `count(previous)`).
struct TemplateObject: MustacheParent, MustacheTransformable, Sendable {
    /// One field's value.
    enum Value: Sendable {
        case text(String)
        case number(Int)
        /// A byte count: hashed apart from `number` (`PageFingerprints`), as an `Int64` was.
        case bytes(Int64)
        case flag(Bool)
        case object(TemplateObject)
        case list([TemplateObject])
    }

    /// The fields' names, in the order given, each once; `values` holds their values.
    let names: [String]
    let values: [Value]

    /// An object of `fields`, in the order lookups should try them (the most used first).
    init(_ fields: KeyValuePairs<String, Value>) {
        names = fields.map(\.key)
        values = fields.map(\.value)
    }

    init(names: [String], values: [Value]) {
        self.names = names
        self.values = values
    }

    /// An object with no field (`closes` of the album index: a list of nothing to show but its length).
    static let empty = TemplateObject([:])

    func child(named name: String) -> Any? {
        guard let index = names.firstIndex(of: name) else { return nil }
        return values[index].rendered
    }

    /// `count`, `empty`, `enumerated` and `sorted`, as swift-mustache answers them for a dictionary.
    func transform(_ name: String) -> Any? {
        var dictionary: [String: Any] = [:]
        for (name, value) in zip(names, values) { dictionary[name] = value.rendered }
        return dictionary.transform(name)
    }
}

extension TemplateObject.Value {
    /// The value as the template is given it.
    var rendered: Any {
        switch self {
        case .text(let text): TemplateText(text: text)
        case .number(let number): TemplateNumber(number: number)
        case .bytes(let bytes): TemplateBytes(bytes: bytes)
        case .flag(let flag): flag
        case .object(let object): object
        case .list(let list): list
        }
    }
}

/// A text of the context: rendered as it is (escaped by the template's content type, as a
/// `String` was), with no field of its own, and swift-mustache's string transforms.
struct TemplateText: MustacheCustomRenderable, MustacheParent, MustacheTransformable {
    let text: String
    var renderText: String { text }
    var isNull: Bool { false }
    func child(named name: String) -> Any? { nil }
    func transform(_ name: String) -> Any? { text.transform(name) }
}

/// A number of the context, rendered in decimal as an `Int` was, with the integer transforms.
struct TemplateNumber: MustacheCustomRenderable, MustacheParent, MustacheTransformable {
    let number: Int
    var renderText: String { String(number) }
    var isNull: Bool { false }
    func child(named name: String) -> Any? { nil }
    func transform(_ name: String) -> Any? { number.transform(name) }
}

/// A byte count of the context, as `TemplateNumber` for an `Int64`.
struct TemplateBytes: MustacheCustomRenderable, MustacheParent, MustacheTransformable {
    let bytes: Int64
    var renderText: String { String(bytes) }
    var isNull: Bool { false }
    func child(named name: String) -> Any? { nil }
    func transform(_ name: String) -> Any? { bytes.transform(name) }
}
