import CLibXML

/// A photo's XMP packet (the RDF/XML Adobe's tools, exiftool, darktable and digiKam write into
/// a JPEG's APP1 segment, a PNG's `iTXt` or a WebP's `XMP ` chunk), read with libxml2: the
/// Dublin Core title, description, subjects, creators and rights, and the EXIF, TIFF and
/// Photoshop properties a file may carry in XMP only (date taken, camera, lens, exposure,
/// position).
///
/// Parsed as any XML the mirror reads (`LibXML.xmlOptions`: no network, no DTD, no entities
/// expanded), bounded (`largestPacket`, `mostNodes`), into a tree that is walked once.
/// Properties are matched by namespace URI and local name, never by prefix, in both of RDF's
/// forms: an element (`<dc:title><rdf:Alt><rdf:li xml:lang="x-default">…`) or an attribute
/// of `rdf:Description` (`tiff:Make="Canon"`).
package enum XMPPacket {
    /// What the packet says, each field as its text; lists (subjects, creators) in order.
    package struct Properties: Equatable {
        package var title: String?
        package var description: String?
        package var subjects: [String] = []
        package var creators: [String] = []
        package var rights: String?
        package var dateTimeOriginal: String?
        package var dateCreated: String?
        package var createDate: String?
        package var make: String?
        package var model: String?
        package var lensModel: String?
        package var focalLength: String?
        package var fNumber: String?
        package var exposureTime: String?
        package var iso: String?
        package var latitude: String?
        package var longitude: String?
    }

    /// The largest packet read, in bytes: a JPEG holds at most 64 KB of standard XMP; a PNG
    /// or WebP packet past this is a document, not a photo's metadata.
    static let largestPacket = 1 << 20
    /// The most nodes walked.
    static let mostNodes = 100_000

    /// The properties of the packet `bytes`, or nil when it is not well-formed XML (or is
    /// larger than `largestPacket`).
    package static func read(_ bytes: ArraySlice<UInt8>) -> Properties? {
        guard !bytes.isEmpty, bytes.count <= largestPacket else { return nil }
        LibXML.ensureInitialized()
        // A packet may end in the padding of spaces and NULs that leaves room for edits.
        let end = bytes.lastIndex { $0 != 0 && $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 } ?? bytes.startIndex
        let packet = bytes[bytes.startIndex...end]
        let document = packet.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                xmlReadMemory(chars.baseAddress, Int32(clamping: chars.count), "xmp.xml", "UTF-8", LibXML.xmlOptions)
            }
        }
        guard let document else { return nil }
        defer { xmlFreeDoc(document) }
        guard let root = xmlDocGetRootElement(document) else { return nil }
        var properties = Properties()
        var walked = 0
        var node: xmlNodePtr? = root
        while let current = node, walked < mostNodes {
            walked += 1
            if current.pointee.type == XML_ELEMENT_NODE {
                take(current, into: &properties, walked: &walked)
            }
            node = next(after: current, within: root)
        }
        return properties
    }

    /// The node after `node` in document order, depth first, staying inside `root`.
    private static func next(after node: xmlNodePtr, within root: xmlNodePtr) -> xmlNodePtr? {
        if node.pointee.type == XML_ELEMENT_NODE, let child = node.pointee.children { return child }
        var current: xmlNodePtr? = node
        while let at = current, at != root {
            if let sibling = at.pointee.next { return sibling }
            current = at.pointee.parent
        }
        return nil
    }

    private static let dc = "http://purl.org/dc/elements/1.1/"
    private static let xmp = "http://ns.adobe.com/xap/1.0/"
    private static let photoshop = "http://ns.adobe.com/photoshop/1.0/"
    private static let exif = "http://ns.adobe.com/exif/1.0/"
    private static let exifEX = "http://cipa.jp/exif/1.0/"
    private static let tiff = "http://ns.adobe.com/tiff/1.0/"
    private static let aux = "http://ns.adobe.com/exif/1.0/aux/"
    private static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

    /// Which field a property sets.
    private enum Field {
        case title, description, subjects, creators, rights, dateTimeOriginal, dateCreated, createDate, make, model
        case lensModel, focalLength, fNumber, exposureTime, iso, latitude, longitude
    }

    private static let fields: [String: Field] = [
        dc + "title": .title, dc + "description": .description, dc + "subject": .subjects, dc + "creator": .creators,
        dc + "rights": .rights, exif + "DateTimeOriginal": .dateTimeOriginal, photoshop + "DateCreated": .dateCreated,
        xmp + "CreateDate": .createDate, tiff + "Make": .make, tiff + "Model": .model, exifEX + "LensModel": .lensModel,
        aux + "Lens": .lensModel, exif + "FocalLength": .focalLength, exif + "FNumber": .fNumber,
        exif + "ExposureTime": .exposureTime, exif + "ISOSpeedRatings": .iso, exifEX + "PhotographicSensitivity": .iso,
        exif + "GPSLatitude": .latitude, exif + "GPSLongitude": .longitude,
    ]

    /// Sets what `element` says, as a property element or through its property attributes.
    private static func take(_ element: xmlNodePtr, into properties: inout Properties, walked: inout Int) {
        if let field = field(named: element.pointee.name, in: element.pointee.ns) {
            let values = self.values(of: element, walked: &walked)
            set(field, values, in: &properties)
        }
        var attribute = element.pointee.properties
        while let current = attribute {
            if let field = field(named: current.pointee.name, in: current.pointee.ns),
                let text = xmlNodeListGetString(element.pointee.doc, current.pointee.children, 1)
            {
                set(field, [String(cString: text)], in: &properties)
                cm_xmlFree(text)
            }
            attribute = current.pointee.next
        }
    }

    private static func field(named name: UnsafePointer<xmlChar>?, in namespace: xmlNsPtr?) -> Field? {
        guard let name, let href = namespace?.pointee.href else { return nil }
        return fields[String(cString: href) + String(cString: name)]
    }

    /// A property element's values: the text of each `rdf:li` of its `rdf:Alt`, `rdf:Bag` or
    /// `rdf:Seq` (an `Alt`'s `x-default` first), or its own text.
    private static func values(of element: xmlNodePtr, walked: inout Int) -> [String] {
        var items: [(text: String, isDefault: Bool)] = []
        var node = element.pointee.children
        var container: xmlNodePtr?
        while let current = node {
            if current.pointee.type == XML_ELEMENT_NODE { container = current }
            node = current.pointee.next
        }
        if let container, isRDF(container, ["Alt", "Bag", "Seq"]) {
            var item = container.pointee.children
            while let current = item, walked < mostNodes {
                walked += 1
                if current.pointee.type == XML_ELEMENT_NODE, isRDF(current, ["li"]) {
                    let language = xmlNodeGetLang(current)
                    let isDefault = language.map { String(cString: $0) == "x-default" } ?? false
                    if let language { cm_xmlFree(language) }
                    items.append((text(of: current), isDefault))
                }
                item = current.pointee.next
            }
            let defaults = items.filter(\.isDefault)
            return (defaults + items.filter { !$0.isDefault }).map(\.text)
        }
        return container == nil ? [text(of: element)] : []
    }

    private static func isRDF(_ node: xmlNodePtr, _ names: [String]) -> Bool {
        guard let href = node.pointee.ns?.pointee.href, String(cString: href) == rdf, let name = node.pointee.name else {
            return false
        }
        return names.contains(String(cString: name))
    }

    private static func text(of node: xmlNodePtr) -> String {
        guard let content = xmlNodeGetContent(node) else { return "" }
        defer { cm_xmlFree(content) }
        return String(cString: content)
    }

    /// The first value given for a field is kept.
    private static func set(_ field: Field, _ values: [String], in properties: inout Properties) {
        let first = values.first { !$0.isEmpty }
        switch field {
        case .title: properties.title = properties.title ?? first
        case .description: properties.description = properties.description ?? first
        case .subjects: if properties.subjects.isEmpty { properties.subjects = values }
        case .creators: if properties.creators.isEmpty { properties.creators = values }
        case .rights: properties.rights = properties.rights ?? first
        case .dateTimeOriginal: properties.dateTimeOriginal = properties.dateTimeOriginal ?? first
        case .dateCreated: properties.dateCreated = properties.dateCreated ?? first
        case .createDate: properties.createDate = properties.createDate ?? first
        case .make: properties.make = properties.make ?? first
        case .model: properties.model = properties.model ?? first
        case .lensModel: properties.lensModel = properties.lensModel ?? first
        case .focalLength: properties.focalLength = properties.focalLength ?? first
        case .fNumber: properties.fNumber = properties.fNumber ?? first
        case .exposureTime: properties.exposureTime = properties.exposureTime ?? first
        case .iso: properties.iso = properties.iso ?? first
        case .latitude: properties.latitude = properties.latitude ?? first
        case .longitude: properties.longitude = properties.longitude ?? first
        }
    }
}
