import CatalogMirror

/// libFuzzer entry for the embedded-metadata reader: any bytes as an image file, or (when they
/// do not start like one) the first byte choosing a block the rest is wrapped in, so libexif,
/// libiptcdata and libxml2 see the fuzzer's bytes directly: a JPEG's APP1 `Exif` or XMP
/// segment, its APP13 Photoshop block (an IPTC resource), a PNG's `eXIf` or a WebP's `XMP `
/// chunk. Whatever is read must be a value the manifest can hold: texts non-empty, free of
/// control characters and at most 2,000 characters; at most 100 keywords; a position on the
/// globe; positive, finite exposure values; a date taken that starts with its year.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetadata(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let metadata = EmbeddedMetadataReader.read(bytes: wrapped(input))
    for text in [
        metadata.taken, metadata.camera, metadata.lens, metadata.creator, metadata.copyright, metadata.title,
        metadata.caption, metadata.exposure?.exposureTime,
    ] + (metadata.keywords ?? []).map(Optional.some) {
        guard let text else { continue }
        precondition(!text.isEmpty && text.count <= 2_000, "text \(text.count)")
        precondition(!text.unicodeScalars.contains { $0.properties.generalCategory == .control }, "control \(text)")
    }
    precondition((metadata.keywords?.count ?? 0) <= 100 && metadata.keywords?.isEmpty != true, "keywords")
    if let location = metadata.location {
        precondition(abs(location.latitude) <= 90 && abs(location.longitude) <= 180, "location \(location)")
    }
    for number in [metadata.exposure?.focalLength, metadata.exposure?.aperture].compactMap({ $0 }) {
        precondition(number.isFinite && number > 0, "exposure \(number)")
    }
    precondition(metadata.exposure?.iso.map { $0 > 0 } ?? true, "iso")
    if let taken = metadata.taken {
        precondition(taken.utf8.count >= 10 && taken.utf8.prefix(4).allSatisfy { (0x30...0x39).contains($0) }, "taken \(taken)")
    }
    return 0
}

/// The file the reader is given: the input itself when it starts like a JPEG, PNG or WebP,
/// else the rest of the input in the block its first byte names.
func wrapped(_ input: [UInt8]) -> [UInt8] {
    guard let mode = input.first else { return input }
    if input.starts(with: [0xFF, 0xD8]) || input.starts(with: [0x89, 0x50]) || input.starts(with: Array("RIFF".utf8)) {
        return input
    }
    let body = Array(input.dropFirst())
    func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let payload = Array(payload.prefix(65_533))
        return [0xFF, 0xD8, 0xFF, marker] + bigEndian(payload.count + 2, 2) + payload + [0xFF, 0xD9]
    }
    switch mode % 5 {
    case 0:
        return segment(0xE1, Array("Exif".utf8) + [0, 0] + body)
    case 1:
        return segment(0xE1, Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + body)
    case 2:
        let resource =
            Array("8BIM".utf8) + [0x04, 0x04, 0, 0] + bigEndian(body.count, 4) + body + (body.count % 2 == 1 ? [0] : [])
        return segment(0xED, Array("Photoshop 3.0".utf8) + [0] + resource)
    case 3:
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        return signature + bigEndian(body.count, 4) + Array("eXIf".utf8) + body + [0, 0, 0, 0]
            + [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
    default:
        let chunk = Array("XMP ".utf8) + littleEndian(body.count) + body + (body.count % 2 == 1 ? [0] : [])
        return Array("RIFF".utf8) + littleEndian(chunk.count + 4) + Array("WEBP".utf8) + chunk
    }
}

func bigEndian(_ value: Int, _ count: Int) -> [UInt8] {
    (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}

func littleEndian(_ value: Int) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}

/// SwiftPM links an executable with `main` aliased to `FuzzMetadata_main`; this hands control to
/// libFuzzer's driver, which parses the command line and calls the entry above.
@_cdecl("FuzzMetadata_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzzMetadata)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
