// The only C header catalog-mirror includes. Only Sources/CatalogMirror/Markup imports this module.
#ifndef CATALOG_MIRROR_CLIBXML_SHIM_H
#define CATALOG_MIRROR_CLIBXML_SHIM_H

#include <libxml/xmlversion.h>

#ifdef LIBXML_ICU_ENABLED
// Debian's libxml2 is built with ICU, so <libxml/encoding.h> includes the system
// <unicode/ucnv.h>, whose enums clash with Foundation's private ICU module in every Swift file
// that imports both. Skip that header (its include guard) and declare the two types libxml2's
// headers use from it; libxml2's own binary is unaffected because only declarations change.
#ifndef UCNV_H
#define UCNV_H
#include <stdint.h>
typedef struct UConverter UConverter;
typedef uint16_t UChar;
#endif
#endif

#include <libxml/parser.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
// xmlSwitchToEncoding, for a page read with SAX callbacks (PageStream).
#include <libxml/parserInternals.h>

/// `xmlFree` is a C global variable (a function pointer); Swift 6 rejects touching shared mutable
/// state, so free through this inline function instead.
static inline void cm_xmlFree(void *pointer) {
    xmlFree(pointer);
}

#endif
