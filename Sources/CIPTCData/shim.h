// libiptcdata, for the IPTC-IIM records a photo carries in its Photoshop (APP13) block. Only
// Sources/CatalogMirror/Embedded/IPTCBlock.swift imports this module.
#ifndef CATALOG_MIRROR_CIPTCDATA_SHIM_H
#define CATALOG_MIRROR_CIPTCDATA_SHIM_H

#include <libiptcdata/iptc-data.h>
#include <libiptcdata/iptc-dataset.h>
#include <libiptcdata/iptc-jpeg.h>

#endif
