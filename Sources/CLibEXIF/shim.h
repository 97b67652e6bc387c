// libexif, for the EXIF block of a photo. Only Sources/CatalogMirror/Embedded/EXIFBlock.swift
// imports this module.
#ifndef CATALOG_MIRROR_CLIBEXIF_SHIM_H
#define CATALOG_MIRROR_CLIBEXIF_SHIM_H

#include <libexif/exif-data.h>
#include <libexif/exif-content.h>
#include <libexif/exif-entry.h>
#include <libexif/exif-utils.h>

#endif
