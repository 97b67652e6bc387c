import ArgumentParser

// Option groups encode as the settings they give, under their properties' names, for
// `MirrorSettings.init(source:given:)`: that is how the settings' one field list reaches the
// parsed options without a second list that maps each option to its field.
//
// ArgumentParser hands parsed values out only property by property and its wrappers are not
// Encodable, hence these two conformances. They use nothing but the public `wrappedValue`; if
// ArgumentParser ever makes its wrappers Encodable, these go.

/// An option encodes its value, or null when it was not given: nil, or a repeatable option
/// given no times (so a saved list is replaced only by a list given on the command line).
extension Option: @retroactive Encodable where Value: Encodable {
    /// Encodes the parsed value, or null when the option was not given.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let list = wrappedValue as? any RepeatableValue, list.isEmpty {
            try container.encodeNil()
        } else {
            try container.encode(wrappedValue)
        }
    }
}

/// A flag encodes `true` when given and null when not, so a flag left off never turns off a
/// saved one.
extension Flag: @retroactive Encodable where Value: Encodable {
    /// Encodes the parsed value, or null for a Boolean flag that was not given.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let flag = wrappedValue as? Bool, !flag {
            try container.encodeNil()
        } else {
            try container.encode(wrappedValue)
        }
    }
}

/// The value of a repeatable option, empty when the option was not given.
private protocol RepeatableValue {
    var isEmpty: Bool { get }
}

extension Array: RepeatableValue {}
