// Decodes JPEG (libjpeg-turbo), PNG (libpng), GIF (giflib) and WebP (libwebp) files into a small
// RGB working copy. See CPixels.h for why this is C.
#include "CPixels.h"

// stdio.h before jpeglib.h, which uses FILE without including it.
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>
#include <jpeglib.h>
#include <png.h>
#include <webp/decode.h>

static void cm_fail(char *error, size_t length, const char *what, const char *detail) {
    if (error && length > 0) snprintf(error, length, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
}

// MARK: Scaling down

/// The working copy's size for an image of `width` × `height`: scaled so that its longer side is
/// at most `max_side`, never up.
static void cm_target_size(int width, int height, int max_side, int *target_width, int *target_height) {
    int longer = width > height ? width : height;
    if (longer <= max_side) {
        *target_width = width;
        *target_height = height;
        return;
    }
    double scale = (double)max_side / (double)longer;
    int w = (int)(width * scale + 0.5), h = (int)(height * scale + 0.5);
    *target_width = w < 1 ? 1 : w;
    *target_height = h < 1 ? 1 : h;
}

/// Averages rows of a source image into the cells of a smaller target as they arrive (a box
/// filter: each source pixel adds to the one target pixel it falls in), so a decoder that
/// gives rows one at a time never holds the source whole.
typedef struct {
    int source_width, source_height, width, height;
    uint32_t *sums;   // width × height × 3
    uint32_t *counts; // width × height
    int *column;      // source x → target x
} cm_box;

static int cm_box_init(cm_box *box, int source_width, int source_height, int width, int height) {
    box->source_width = source_width;
    box->source_height = source_height;
    box->width = width;
    box->height = height;
    box->sums = calloc((size_t)width * height * 3, sizeof(uint32_t));
    box->counts = calloc((size_t)width * height, sizeof(uint32_t));
    box->column = malloc((size_t)source_width * sizeof(int));
    if (!box->sums || !box->counts || !box->column) return -1;
    for (int x = 0; x < source_width; x++) box->column[x] = (int)((long long)x * width / source_width);
    return 0;
}

static void cm_box_add_row(cm_box *box, int y, const unsigned char *rgb) {
    int ty = (int)((long long)y * box->height / box->source_height);
    uint32_t *sums = box->sums + (size_t)ty * box->width * 3;
    uint32_t *counts = box->counts + (size_t)ty * box->width;
    for (int x = 0; x < box->source_width; x++) {
        int tx = box->column[x];
        sums[tx * 3] += rgb[x * 3];
        sums[tx * 3 + 1] += rgb[x * 3 + 1];
        sums[tx * 3 + 2] += rgb[x * 3 + 2];
        counts[tx] += 1;
    }
}

static unsigned char *cm_box_finish(cm_box *box) {
    size_t cells = (size_t)box->width * box->height;
    unsigned char *rgb = malloc(cells * 3);
    if (rgb) {
        for (size_t i = 0; i < cells; i++) {
            uint32_t n = box->counts[i] ? box->counts[i] : 1;
            for (int c = 0; c < 3; c++) rgb[i * 3 + c] = (unsigned char)((box->sums[i * 3 + c] + n / 2) / n);
        }
    }
    return rgb;
}

static void cm_box_free(cm_box *box) {
    free(box->sums);
    free(box->counts);
    free(box->column);
}

// MARK: JPEG

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
} cm_jpeg_error;

static void cm_jpeg_exit(j_common_ptr info) {
    cm_jpeg_error *error = (cm_jpeg_error *)info->err;
    (*info->err->format_message)(info, error->message);
    longjmp(error->jump, 1);
}

static void cm_jpeg_message(j_common_ptr info, int level) {
    (void)info;
    (void)level;  // warnings (a premature end, extraneous bytes) are not errors here
}

/// Everything the JPEG decoder changes after its `setjmp`, on the heap: a local variable changed
/// between `setjmp` and `longjmp` has no defined value after the jump, the pointee of an
/// unchanged pointer does.
typedef struct {
    struct jpeg_decompress_struct info;
    cm_jpeg_error failure;
    cm_box box;
    unsigned char *row;
    unsigned char *rgb;
} cm_jpeg_state;

static void cm_jpeg_state_free(cm_jpeg_state *state) {
    jpeg_destroy_decompress(&state->info);
    cm_box_free(&state->box);
    free(state->row);
    free(state->rgb);
    free(state);
}

static int cm_decode_jpeg(FILE *file, int max_side, cm_pixels *out, char *error, size_t length) {
    cm_jpeg_state *const state = calloc(1, sizeof(cm_jpeg_state));
    if (!state) {
        cm_fail(error, length, "out of memory", NULL);
        return -2;
    }
    struct jpeg_decompress_struct *info = &state->info;
    info->err = jpeg_std_error(&state->failure.manager);
    state->failure.manager.error_exit = cm_jpeg_exit;
    state->failure.manager.emit_message = cm_jpeg_message;
    if (setjmp(state->failure.jump)) {
        cm_fail(error, length, "corrupt JPEG", state->failure.message);
        cm_jpeg_state_free(state);
        return -2;
    }
    jpeg_create_decompress(info);
    jpeg_stdio_src(info, file);
    jpeg_read_header(info, TRUE);
    out->full_width = (int)info->image_width;
    out->full_height = (int)info->image_height;
    cm_target_size(out->full_width, out->full_height, max_side, &out->width, &out->height);
    // DCT scaling: the largest reduction (1/8, 1/4, 1/2) that still leaves the longer side at
    // least half the working copy's: a copy of 128 to 256 pixels is as good for the matcher,
    // and the inverse DCT at 1/8 costs a quarter of 1/4's. Below `max_side`, no box filter.
    int longer = out->full_width > out->full_height ? out->full_width : out->full_height;
    int target_longer = out->width > out->height ? out->width : out->height;
    int floor_longer = target_longer < longer ? (max_side + 1) / 2 : target_longer;
    int denominator = 1;
    while (denominator < 8 && (longer + denominator * 2 - 1) / (denominator * 2) >= floor_longer) denominator *= 2;
    info->scale_num = 1;
    info->scale_denom = (unsigned)denominator;
    int cmyk = info->jpeg_color_space == JCS_CMYK || info->jpeg_color_space == JCS_YCCK;
    info->out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    jpeg_start_decompress(info);
    int width = (int)info->output_width, height = (int)info->output_height;
    // A scaled decode smaller than the working copy asked for is the working copy.
    if (width < out->width || height < out->height) {
        out->width = width;
        out->height = height;
    }
    state->row = malloc((size_t)width * info->output_components);
    state->rgb = cmyk ? malloc((size_t)width * 3) : NULL;
    if (!state->row || (cmyk && !state->rgb) ||
        cm_box_init(&state->box, width, height, out->width, out->height) != 0) {
        cm_fail(error, length, "out of memory", NULL);
        cm_jpeg_state_free(state);
        return -2;
    }
    // Adobe's CMYK JPEGs store the inks inverted.
    int inverted = info->saw_Adobe_marker;
    while (info->output_scanline < info->output_height) {
        JSAMPROW rows[1] = {state->row};
        int y = (int)info->output_scanline;
        jpeg_read_scanlines(info, rows, 1);
        if (cmyk) {
            unsigned char *row = state->row;
            for (int x = 0; x < width; x++) {
                int c = row[x * 4], m = row[x * 4 + 1], yellow = row[x * 4 + 2], k = row[x * 4 + 3];
                if (!inverted) {
                    c = 255 - c;
                    m = 255 - m;
                    yellow = 255 - yellow;
                    k = 255 - k;
                }
                state->rgb[x * 3] = (unsigned char)(c * k / 255);
                state->rgb[x * 3 + 1] = (unsigned char)(m * k / 255);
                state->rgb[x * 3 + 2] = (unsigned char)(yellow * k / 255);
            }
            cm_box_add_row(&state->box, y, state->rgb);
        } else {
            cm_box_add_row(&state->box, y, state->row);
        }
    }
    jpeg_finish_decompress(info);
    out->rgb = cm_box_finish(&state->box);
    cm_jpeg_state_free(state);
    if (!out->rgb) {
        cm_fail(error, length, "out of memory", NULL);
        return -2;
    }
    return 0;
}

// MARK: PNG

static int cm_decode_png(const char *path, int max_side, long long max_pixels, cm_pixels *out, char *error,
                         size_t length) {
    // libpng's simplified API: it catches its own errors (no longjmp reaches here) and
    // composes alpha over the background given.
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) {
        cm_fail(error, length, "corrupt PNG", image.message);
        return -2;
    }
    out->full_width = (int)image.width;
    out->full_height = (int)image.height;
    if ((long long)image.width * image.height > max_pixels) {
        png_image_free(&image);
        cm_fail(error, length, "PNG too large to compare", NULL);
        return -3;
    }
    image.format = PNG_FORMAT_RGB;
    size_t stride = (size_t)image.width * 3;
    unsigned char *buffer = malloc(stride * image.height);
    if (!buffer) {
        png_image_free(&image);
        cm_fail(error, length, "out of memory", NULL);
        return -2;
    }
    png_color white = {255, 255, 255};
    if (!png_image_finish_read(&image, &white, buffer, (png_int_32)stride, NULL)) {
        cm_fail(error, length, "corrupt PNG", image.message);
        free(buffer);
        return -2;
    }
    cm_target_size(out->full_width, out->full_height, max_side, &out->width, &out->height);
    cm_box box = {0};
    int status = cm_box_init(&box, out->full_width, out->full_height, out->width, out->height);
    if (status == 0) {
        for (int y = 0; y < out->full_height; y++) cm_box_add_row(&box, y, buffer + stride * y);
        out->rgb = cm_box_finish(&box);
    }
    cm_box_free(&box);
    free(buffer);
    if (!out->rgb) {
        cm_fail(error, length, "out of memory", NULL);
        return -2;
    }
    return 0;
}

// MARK: GIF

static int cm_decode_gif(const char *path, int max_side, long long max_pixels, cm_pixels *out, char *error,
                         size_t length) {
    int code = 0;
    GifFileType *gif = DGifOpenFileName(path, &code);
    if (!gif) {
        cm_fail(error, length, "corrupt GIF", GifErrorString(code));
        return -2;
    }
    int width = gif->SWidth, height = gif->SHeight;
    out->full_width = width;
    out->full_height = height;
    if (width <= 0 || height <= 0 || (long long)width * height > max_pixels) {
        DGifCloseFile(gif, &code);
        cm_fail(error, length, "GIF of no size, or too large to compare", NULL);
        return -3;
    }
    unsigned char *canvas = malloc((size_t)width * height * 3);
    GifPixelType *line = malloc((size_t)width);
    if (!canvas || !line) {
        free(canvas);
        free(line);
        DGifCloseFile(gif, &code);
        cm_fail(error, length, "out of memory", NULL);
        return -2;
    }
    memset(canvas, 255, (size_t)width * height * 3);  // transparent: white
    int transparent = -1, status = -2;
    GifRecordType record;
    // The first frame only: a still of an animation is enough to compare.
    while (DGifGetRecordType(gif, &record) == GIF_OK && record != TERMINATE_RECORD_TYPE) {
        if (record == EXTENSION_RECORD_TYPE) {
            int kind;
            GifByteType *extension;
            if (DGifGetExtension(gif, &kind, &extension) != GIF_OK) break;
            if (kind == GRAPHICS_EXT_FUNC_CODE && extension && extension[0] >= 4 && (extension[1] & 1))
                transparent = extension[4];
            while (extension) {
                if (DGifGetExtensionNext(gif, &extension) != GIF_OK) {
                    extension = NULL;
                    record = TERMINATE_RECORD_TYPE;
                }
            }
            if (record == TERMINATE_RECORD_TYPE) break;
        } else if (record == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageDesc(gif) != GIF_OK) break;
            GifImageDesc *frame = &gif->Image;
            ColorMapObject *colors = frame->ColorMap ? frame->ColorMap : gif->SColorMap;
            if (!colors || frame->Width <= 0 || frame->Width > width) break;
            static const int offsets[] = {0, 4, 2, 1}, steps[] = {8, 8, 4, 2};
            int passes = frame->Interlace ? 4 : 1, ok = 1;
            for (int pass = 0; pass < passes && ok; pass++) {
                int first = frame->Interlace ? offsets[pass] : 0, step = frame->Interlace ? steps[pass] : 1;
                for (int y = first; y < frame->Height; y += step) {
                    if (DGifGetLine(gif, line, frame->Width) != GIF_OK) {
                        ok = 0;
                        break;
                    }
                    int cy = frame->Top + y;
                    if (cy < 0 || cy >= height) continue;
                    for (int x = 0; x < frame->Width; x++) {
                        int cx = frame->Left + x;
                        if (cx < 0 || cx >= width || line[x] == transparent || line[x] >= colors->ColorCount) continue;
                        GifColorType color = colors->Colors[line[x]];
                        unsigned char *pixel = canvas + ((size_t)cy * width + cx) * 3;
                        pixel[0] = color.Red;
                        pixel[1] = color.Green;
                        pixel[2] = color.Blue;
                    }
                }
            }
            status = ok ? 0 : -2;
            break;
        } else {
            break;
        }
    }
    DGifCloseFile(gif, &code);
    free(line);
    if (status == 0) {
        cm_target_size(width, height, max_side, &out->width, &out->height);
        cm_box box = {0};
        if (cm_box_init(&box, width, height, out->width, out->height) == 0) {
            for (int y = 0; y < height; y++) cm_box_add_row(&box, y, canvas + (size_t)y * width * 3);
            out->rgb = cm_box_finish(&box);
        }
        cm_box_free(&box);
        if (!out->rgb) status = -2;
    }
    free(canvas);
    if (status != 0) cm_fail(error, length, "corrupt GIF", "no frame could be read");
    return status;
}

// MARK: WebP

static int cm_decode_webp(FILE *file, int max_side, long long max_pixels, cm_pixels *out, char *error,
                          size_t length) {
    if (fseek(file, 0, SEEK_END) != 0) return -2;
    long size = ftell(file);
    // A WebP file is decoded from memory; a larger one than any photo's is not compared.
    if (size <= 0 || size > 256L * 1024 * 1024) {
        cm_fail(error, length, "WebP too large to compare", NULL);
        return -3;
    }
    rewind(file);
    uint8_t *data = malloc((size_t)size);
    if (!data || fread(data, 1, (size_t)size, file) != (size_t)size) {
        free(data);
        cm_fail(error, length, "unreadable WebP", NULL);
        return -2;
    }
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config) || WebPGetFeatures(data, (size_t)size, &config.input) != VP8_STATUS_OK) {
        free(data);
        cm_fail(error, length, "corrupt WebP", NULL);
        return -2;
    }
    out->full_width = config.input.width;
    out->full_height = config.input.height;
    if ((long long)out->full_width * out->full_height > max_pixels * 16) {
        free(data);
        cm_fail(error, length, "WebP too large to compare", NULL);
        return -3;
    }
    cm_target_size(out->full_width, out->full_height, max_side, &out->width, &out->height);
    config.options.use_scaling = out->width != out->full_width || out->height != out->full_height;
    config.options.scaled_width = out->width;
    config.options.scaled_height = out->height;
    config.output.colorspace = MODE_RGBA;
    VP8StatusCode decoded = WebPDecode(data, (size_t)size, &config);
    free(data);
    if (decoded != VP8_STATUS_OK) {
        cm_fail(error, length, "corrupt WebP", NULL);
        return -2;
    }
    const WebPRGBABuffer *rgba = &config.output.u.RGBA;
    out->width = config.output.width;
    out->height = config.output.height;
    out->rgb = malloc((size_t)out->width * out->height * 3);
    if (out->rgb) {
        for (int y = 0; y < out->height; y++) {
            const uint8_t *source = rgba->rgba + (size_t)y * rgba->stride;
            unsigned char *target = out->rgb + (size_t)y * out->width * 3;
            for (int x = 0; x < out->width; x++) {
                int alpha = source[x * 4 + 3];
                for (int c = 0; c < 3; c++)  // over white
                    target[x * 3 + c] = (unsigned char)((source[x * 4 + c] * alpha + 255 * (255 - alpha) + 127) / 255);
            }
        }
    }
    WebPFreeDecBuffer(&config.output);
    if (!out->rgb) {
        cm_fail(error, length, "out of memory", NULL);
        return -2;
    }
    return 0;
}

// MARK: Any

int cm_decode_file(const char *path, int max_side, long long max_pixels, cm_pixels *out, char *error,
                   size_t error_length) {
    memset(out, 0, sizeof *out);
    if (max_side < 1) max_side = 1;
    FILE *file = fopen(path, "rb");
    if (!file) {
        cm_fail(error, error_length, "cannot open the file", NULL);
        return -2;
    }
    unsigned char magic[12] = {0};
    size_t read = fread(magic, 1, sizeof magic, file);
    rewind(file);
    int status;
    if (read >= 3 && magic[0] == 0xFF && magic[1] == 0xD8 && magic[2] == 0xFF) {
        status = cm_decode_jpeg(file, max_side, out, error, error_length);
    } else if (read >= 8 && memcmp(magic, "\x89PNG\r\n\x1a\n", 8) == 0) {
        status = cm_decode_png(path, max_side, max_pixels, out, error, error_length);
    } else if (read >= 6 && (memcmp(magic, "GIF87a", 6) == 0 || memcmp(magic, "GIF89a", 6) == 0)) {
        status = cm_decode_gif(path, max_side, max_pixels, out, error, error_length);
    } else if (read >= 12 && memcmp(magic, "RIFF", 4) == 0 && memcmp(magic + 8, "WEBP", 4) == 0) {
        status = cm_decode_webp(file, max_side, max_pixels, out, error, error_length);
    } else {
        cm_fail(error, error_length, "not a JPEG, PNG, GIF or WebP file", NULL);
        status = -1;
    }
    fclose(file);
    if (status != 0) cm_pixels_free(out);
    return status;
}

void cm_pixels_free(cm_pixels *pixels) {
    free(pixels->rgb);
    pixels->rgb = NULL;
}
