// Decoding an image file into a small RGB working copy, for the pixel matcher
// (Sources/MirrorPixels). C, not Swift: libjpeg and libpng report a corrupt file by calling
// an error handler that must not return (the libraries' documented way out is longjmp back
// to a setjmp), which Swift cannot express; giflib and libwebp are called from here too so
// that every format goes through one function with one result type.
#ifndef CPIXELS_H
#define CPIXELS_H

#include <stddef.h>

/// A decoded working copy: `width` × `height` pixels of 3 bytes (R, G, B), rows packed.
typedef struct {
    /// The image's own size in pixels, as its file declares it.
    int full_width;
    int full_height;
    /// The working copy's size: the image scaled down (never up) so that its longer side is
    /// at most the `max_side` asked for.
    int width;
    int height;
    unsigned char *rgb;
} cm_pixels;

/// Decodes the first frame of the JPEG, PNG, GIF or WebP file at `path` into `out`, scaled down
/// to at most `max_side` pixels on its longer side: JPEG with libjpeg-turbo's DCT scaling and
/// WebP with libwebp's scaled decode (the full size is never held), PNG and GIF decoded whole
/// and averaged down. Transparent pixels are composed over white. Returns 0 on success; else a
/// negative value, with a one-line reason in `error` (at most `error_length` bytes): -1 not a
/// format this decodes, -2 unreadable or corrupt, -3 larger than `max_pixels` when it must be
/// decoded whole.
int cm_decode_file(const char *path, int max_side, long long max_pixels, cm_pixels *out, char *error,
                   size_t error_length);

/// Frees what `cm_decode_file` allocated in `pixels`.
void cm_pixels_free(cm_pixels *pixels);

#endif
