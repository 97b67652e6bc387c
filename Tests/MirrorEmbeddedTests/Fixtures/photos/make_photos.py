#!/usr/bin/env python3
"""Writes the photo fixtures of EmbeddedMetadataTests (and the seeds of Fuzz/corpus/FuzzMetadata):
small pictures drawn with Pillow, whose metadata exiftool then writes, as a photographer's
tools would. Run from anywhere: python3 make_photos.py (needs Pillow and exiftool:
apt-get install libimage-exiftool-perl). The outputs are committed; the tests read them only.
"""
import pathlib
import subprocess

from PIL import Image, ImageDraw

here = pathlib.Path(__file__).resolve().parent


def picture(path, colour, fmt):
    image = Image.new("RGB", (24, 16), colour)
    ImageDraw.Draw(image).rectangle((4, 4, 19, 11), fill=(255, 255, 255))
    image.save(path, fmt, **({"quality": 80} if fmt == "JPEG" else {}))


def exiftool(path, *tags):
    subprocess.run(["exiftool", "-q", "-overwrite_original", "-m", *tags, str(path)], check=True)


# Everything: EXIF (camera, lens, exposure, date with offset, GPS), IPTC and XMP descriptions
# that differ, so a test sees which one wins.
full = here / "full.jpg"
picture(full, (40, 90, 160), "JPEG")
exiftool(
    full,
    "-EXIF:Make=Canon", "-EXIF:Model=Canon EOS 5D Mark IV", "-EXIF:LensModel=EF24-105mm f/4L IS USM",
    "-EXIF:DateTimeOriginal=2019:06:01 18:30:05", "-EXIF:OffsetTimeOriginal=+02:00",
    "-EXIF:FNumber=8", "-EXIF:ExposureTime=1/250", "-EXIF:ISO=200", "-EXIF:FocalLength=50",
    "-EXIF:GPSLatitude=48.8583701", "-EXIF:GPSLatitudeRef=N", "-EXIF:GPSLongitude=2.2944813", "-EXIF:GPSLongitudeRef=E",
    "-EXIF:Artist=EXIF Artist", "-EXIF:Copyright=EXIF copyright",
    "-IPTC:ObjectName=Eiffel tower", "-IPTC:Caption-Abstract=IPTC caption", "-IPTC:Keywords=iptc-only",
    "-IPTC:By-line=IPTC By-line", "-IPTC:CopyrightNotice=IPTC copyright",
    "-XMP-dc:Title=Tour Eiffel at dusk", "-XMP-dc:Description=The tower lit at dusk, seen from the Trocadéro",
    "-XMP-dc:Subject=Paris", "-XMP-dc:Subject=tower", "-XMP-dc:Subject=dusk",
    "-XMP-dc:Creator=Jane Doe", "-XMP-dc:Rights=© 2019 Jane Doe",
)

# IPTC only, in Latin-1 (exiftool's default for IPTC without a character set): a title, a
# caption, keywords, a copyright.
iptc = here / "iptc-only.jpg"
picture(iptc, (200, 120, 40), "JPEG")
exiftool(
    iptc, "-charset", "iptc=Latin",
    "-IPTC:ObjectName=Harbour at noon", "-IPTC:Caption-Abstract=Fishing boats by the café", "-IPTC:Keywords=harbour",
    "-IPTC:Keywords=boats", "-IPTC:CopyrightNotice=© 2021 Port Authority", "-IPTC:DateCreated=2021:07:14",
    "-IPTC:TimeCreated=12:05:00+01:00",
)

# PNG: EXIF in eXIf, XMP in iTXt (title, subjects, a position in XMP's own form).
png = here / "xmp.png"
picture(png, (30, 140, 60), "PNG")
exiftool(
    png, "-EXIF:Model=DMC-GX80", "-EXIF:Make=Panasonic", "-EXIF:DateTimeOriginal=2020:02:29 09:15:00",
    "-XMP-dc:Title=Meadow", "-XMP-dc:Subject=grass", "-XMP-dc:Subject=spring",
    "-XMP-exif:GPSLatitude=51 30 26.4 N", "-XMP-exif:GPSLongitude=0 7 39.9 W",
)

# WebP: EXIF and XMP chunks after the image data.
webp = here / "exif.webp"
picture(webp, (120, 30, 120), "WEBP")
exiftool(
    webp, "-EXIF:Make=NIKON CORPORATION", "-EXIF:Model=NIKON D700", "-EXIF:DateTimeOriginal=2012:12:24 23:59:59",
    "-EXIF:ExposureTime=2.5", "-EXIF:FNumber=2.8", "-XMP-dc:Title=Midnight mass", "-XMP-dc:Creator=Ann",
    "-XMP-dc:Creator=Bob",
)

# No metadata at all.
picture(here / "plain.jpg", (90, 90, 90), "JPEG")

# A damaged EXIF block (the TIFF header cut after its byte order) beside a good XMP title: the
# EXIF is ignored with a problem, the title kept.
damaged = here / "damaged-exif.jpg"
picture(damaged, (10, 10, 10), "JPEG")
exiftool(damaged, "-XMP-dc:Title=Still titled")
data = damaged.read_bytes()
segment = b"Exif\x00\x00MM\x00*\x00\x00\xff\xff" + bytes(range(64))
app1 = b"\xff\xe1" + (len(segment) + 2).to_bytes(2, "big") + segment
damaged.write_bytes(data[:2] + app1 + data[2:])
