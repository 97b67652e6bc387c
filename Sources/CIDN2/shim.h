// libidn2 (IDNA2008 with the UTS #46 mapping), the library curl and wget2 use for host names.
// Only Sources/CatalogMirror/Keys/DomainToASCII.swift imports this module.
#ifndef CATALOG_MIRROR_CIDN2_SHIM_H
#define CATALOG_MIRROR_CIDN2_SHIM_H

#include <idn2.h>

#endif
