// libpng under setjmp: decode (expanded to 8-bit RGB on white), probe and encode.
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <png.h>
#include "imaging.h"

typedef struct {
    const unsigned char *data;
    size_t size, offset;
    img_result *result;
} reader;

static void on_error(png_structp png, png_const_charp message) {
    reader *r = (reader *)png_get_error_ptr(png);
    snprintf(r->result->message, sizeof r->result->message, "%s", message);
    png_longjmp(png, 1);
}

// libpng's warnings were all harmless on real photos (iCCP profile notes): ignored, but for those
// that say the image data held more than the image (counted: bytes there could hold anything).
static void on_warning(png_structp png, png_const_charp message) {
    reader *r = (reader *)png_get_error_ptr(png);
    if (r && message && (strstr(message, "xtra compressed data") || strstr(message, "Too much image data") || strstr(message, "too much image data")))
        r->result->extraneous++;
}

static void on_read(png_structp png, png_bytep out, png_size_t length) {
    reader *r = (reader *)png_get_io_ptr(png);
    if (length > r->size - r->offset) {
        snprintf(r->result->message, sizeof r->result->message, "premature end of data");
        png_longjmp(png, 2);
    }
    memcpy(out, r->data + r->offset, length);
    r->offset += length;
}

// A cut file fails reading past its end ("Read Error"). "Not enough image data" means the image
// data ended before the rows did though its chunks were whole: damaged (or badly encoded) data.
static int classify(img_result *result, int jump) {
    if (jump == 2 || strstr(result->message, "Read Error")) return IMG_ETRUNCATED;
    if (strstr(result->message, "exceeds") || strstr(result->message, "too large") || strstr(result->message, "limits"))
        return IMG_ETOOLARGE;
    return IMG_ECORRUPT;
}

static void fill_info(png_structp png, png_infop info_ptr, img_info *info) {
    info->width = (int)png_get_image_width(png, info_ptr);
    info->height = (int)png_get_image_height(png, info_ptr);
    info->components = png_get_channels(png, info_ptr);
    info->color_type = png_get_color_type(png, info_ptr);
    info->bit_depth = png_get_bit_depth(png, info_ptr);
    info->progressive = png_get_interlace_type(png, info_ptr) != PNG_INTERLACE_NONE;
}

static void apply_limits(png_structp png, const img_limits *limits) {
    // Dimension limits stop absurd headers in png_read_info; the pixel count is checked after it.
    png_set_user_limits(png, 65535, 65535);
    if (limits && limits->max_chunk > 0) png_set_chunk_malloc_max(png, limits->max_chunk);
    // Chunks nothing here reads are skipped, not inflated and kept: libpng keeps up to 1,000
    // ancillary chunks of up to the chunk limit each, and 30 zTXt chunks of 8 MB of text each fit in
    // a 234 kB file (the XMP iTXt and eXIf chunks are read from the file's bytes by Imaging).
    static const png_byte ignored[] = "tEXt\0zTXt\0iTXt\0eXIf\0sPLT\0hIST\0pCAL\0sCAL\0tIME\0";
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, ignored, (int)(sizeof ignored / 5));
}

// An APNG's frames are its fcTL chunks (acTL's count is only a claim), counted by walking the chunk
// list, which is bounded by the file; nothing decodes them here, but a viewer plays them all, so the
// count and canvas x frames are held to the limits every animation is held to.
static int check_animation(const unsigned char *data, size_t size, const img_info *info, const img_limits *limits,
                           img_result *result) {
    long long frames = 0;
    int animated = 0, image_seen = 0;
    for (size_t at = 8; at + 12 <= size;) {
        size_t length = (size_t)data[at] << 24 | (size_t)data[at + 1] << 16 | (size_t)data[at + 2] << 8 | data[at + 3];
        const unsigned char *type = data + at + 4;
        if (length > size - at - 12 || memcmp(type, "IEND", 4) == 0) break;
        if (memcmp(type, "IDAT", 4) == 0) image_seen = 1;
        else if (memcmp(type, "acTL", 4) == 0 && !image_seen) animated = 1;   // after IDAT it is not an APNG
        else if (memcmp(type, "fcTL", 4) == 0) frames++;
        at += 12 + length;
    }
    return animated ? img_animation_check(frames, info->width, info->height, limits, result) : IMG_OK;
}

int img_png_probe(const unsigned char *data, size_t size, img_info *info, img_result *result) {
    reader r = { data, size, 0, result };
    memset(info, 0, sizeof *info);
    result->status = IMG_OK;
    result->warnings = 0;
    result->extraneous = 0;
    result->message[0] = 0;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r, on_error, on_warning);
    if (!png) return result->status = IMG_ENOMEM;
    png_infop info_ptr = png_create_info_struct(png);
    int jump;
    if ((jump = setjmp(png_jmpbuf(png)))) {
        png_destroy_read_struct(&png, &info_ptr, NULL);
        return result->status = classify(result, jump);
    }
    if (!info_ptr) png_error(png, "out of memory");
    apply_limits(png, NULL);
    png_set_read_fn(png, &r, on_read);
    png_read_info(png, info_ptr);
    fill_info(png, info_ptr, info);
    png_destroy_read_struct(&png, &info_ptr, NULL);
    return IMG_OK;
}

int img_png_icc(const unsigned char *data, size_t size, unsigned char **out, size_t *out_size) {
    img_result result;
    reader r = { data, size, 0, &result };
    *out = NULL;
    *out_size = 0;
    result.message[0] = 0;
    result.extraneous = 0;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r, on_error, on_warning);
    if (!png) return -1;
    png_infop info_ptr = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info_ptr, NULL);
        free(*out);
        *out = NULL;
        *out_size = 0;
        return -1;
    }
    if (!info_ptr) png_error(png, "out of memory");
    apply_limits(png, NULL);
    png_set_read_fn(png, &r, on_read);
    png_read_info(png, info_ptr);
    png_charp name;
    int compression;
    png_bytep profile;
    png_uint_32 length;
    int found = -1;
    if (png_get_iCCP(png, info_ptr, &name, &compression, &profile, &length) == PNG_INFO_iCCP && length > 0
        && (*out = malloc(length))) {
        memcpy(*out, profile, length);
        *out_size = length;
        found = 0;
    }
    png_destroy_read_struct(&png, &info_ptr, NULL);
    return found;
}

// One RGBA row composited on white into RGB sums, k source pixels to an output pixel.
// Adds one decoded row into the sums of its band of k-wide blocks (RGB per block). Rows with
// alpha (`channels` 4) are composited on white first; opaque rows (3) are summed as they are.
static void accumulate(const unsigned char *row, int w, int k, int channels, unsigned *sums) {
    for (int x0 = 0; x0 < w; x0 += k, sums += 3) {
        int x1 = x0 + k < w ? x0 + k : w;
        unsigned r = 0, g = 0, b = 0;
        const unsigned char *p = row + (size_t)x0 * channels;
        if (channels == 3) {
            for (int x = x0; x < x1; x++, p += 3) { r += p[0]; g += p[1]; b += p[2]; }
        } else {
            // Most pixels of most images with alpha are opaque (or fully transparent): those are
            // added as they are (or as white), which is what the composite gives, without its
            // multiplications (the composite loop was 6% of a corpus import's CPU).
            for (int x = x0; x < x1; x++, p += 4) {
                unsigned a = p[3];
                if (a == 255) {
                    r += p[0]; g += p[1]; b += p[2];
                } else if (a == 0) {
                    r += 255; g += 255; b += 255;
                } else {
                    r += (p[0] * a + 255 * (255 - a) + 127) / 255;
                    g += (p[1] * a + 255 * (255 - a) + 127) / 255;
                    b += (p[2] * a + 255 * (255 - a) + 127) / 255;
                }
            }
        }
        sums[0] += r; sums[1] += g; sums[2] += b;
    }
}

int img_png_decode(const unsigned char *data, size_t size, const img_limits *limits, int max_side,
                   img_info *info, unsigned char **pixels, int *width, int *height, img_result *result) {
    reader r = { data, size, 0, result };
    unsigned char *volatile rgba = NULL;
    png_bytep *volatile rows = NULL;
    unsigned *volatile sums = NULL;
    *pixels = NULL;
    memset(info, 0, sizeof *info);
    result->status = IMG_OK;
    result->warnings = 0;
    result->extraneous = 0;
    result->message[0] = 0;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r, on_error, on_warning);
    if (!png) return result->status = IMG_ENOMEM;
    png_infop info_ptr = png_create_info_struct(png);
    int jump;
    if ((jump = setjmp(png_jmpbuf(png)))) {
        free(rgba);
        free(rows);
        free(sums);
        png_destroy_read_struct(&png, &info_ptr, NULL);
        return result->status = classify(result, jump);
    }
    if (!info_ptr) png_error(png, "out of memory");
    apply_limits(png, limits);
    png_set_read_fn(png, &r, on_read);
    // The zlib stream's Adler-32 is not recomputed: every IDAT chunk's CRC-32 (checked, an error
    // on mismatch) covers the same compressed bytes, so a damaged stream is still refused. ~7% of
    // a large PNG's decode.
    png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
    png_read_info(png, info_ptr);
    fill_info(png, info_ptr, info);
    long long count = (long long)info->width * info->height;
    if (limits && limits->max_pixels > 0 && count > limits->max_pixels) {
        snprintf(result->message, sizeof result->message, "image %dx%d exceeds the %.4g MP limit",
                 info->width, info->height, limits->max_pixels / 1e6);
        png_destroy_read_struct(&png, &info_ptr, NULL);
        return result->status = IMG_ETOOLARGE;
    }
    if (check_animation(data, size, info, limits, result) != IMG_OK) {
        png_destroy_read_struct(&png, &info_ptr, NULL);
        return result->status;
    }
    // Everything becomes 8-bit RGBA: palette and low-bit grey expanded, tRNS to alpha,
    // 16-bit scaled (not truncated), grey to RGB, opaque images given a full alpha.
    int w = info->width, h = info->height;
    // Reduced while read: each row composited and summed into blocks of k×k source pixels, k the
    // largest factor that keeps the longest side at least max_side, so no full-size buffer exists.
    // An interlaced image arrives in seven passes: every pass is read (and checked), and the rows
    // of the last, which holds every odd row whole, are reduced, k/2 of them to a band (decoded
    // whole, a 100-megapixel interlaced PNG of 389 kB held 424 MB).
    int longest = w > h ? w : h;
    int interlaced = info->progressive;
    int k = max_side > 0 && (!interlaced || h >= 2) ? longest / max_side : 1;
    // Even for an interlaced image: k columns and k/2 of its odd rows make the same square block.
    if (interlaced && k >= 2) k &= ~1;
    // Reduced rows of an image without alpha (no alpha channel, no tRNS) stay RGB: nothing to composite.
    int opaque = k >= 2 && !(png_get_color_type(png, info_ptr) & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, info_ptr, PNG_INFO_tRNS);
    png_set_expand(png);
    png_set_scale_16(png);
    png_set_gray_to_rgb(png);
    if (!opaque) png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info_ptr);
    if (k >= 2) {
        // The rows reduced (all, or the last pass's odd ones) and how many of them make a band.
        int used = interlaced ? h / 2 : h, kv = interlaced ? (k / 2 > 0 ? k / 2 : 1) : k;
        int ow = (w + k - 1) / k, oh = (used + kv - 1) / kv, channels = opaque ? 3 : 4;
        rgba = malloc((size_t)w * channels + (size_t)ow * oh * 3);
        sums = calloc((size_t)ow * 3, sizeof(unsigned));
        if (!rgba || !sums) png_error(png, "out of memory for the image");
        unsigned char *row = rgba, *out = rgba + (size_t)w * channels;
        for (int pass = interlaced ? 0 : 6; pass < 7; pass++) {
            for (int y = 0; y < h; y++) {
                png_read_row(png, row, NULL);
                if (pass < 6 || (interlaced && y % 2 == 0)) continue;
                int v = interlaced ? y / 2 : y;
                accumulate(row, w, k, channels, sums);
                int band = v / kv;
                if (v % kv == kv - 1 || v == used - 1) {
                    int tall = v - band * kv + 1;
                    for (int x = 0; x < ow; x++) {
                        unsigned wide = (unsigned)((x + 1) * k <= w ? k : w - x * k), n = wide * (unsigned)tall;
                        for (int c = 0; c < 3; c++) out[((size_t)band * ow + x) * 3 + c] = (unsigned char)((sums[x * 3 + c] + n / 2) / n);
                    }
                    memset(sums, 0, (size_t)ow * 3 * sizeof(unsigned));
                }
            }
        }
        png_read_end(png, NULL);
        png_destroy_read_struct(&png, &info_ptr, NULL);
        free(sums);
        // The reduced pixels to the front of the buffer, the row buffer given back.
        memmove(rgba, out, (size_t)ow * oh * 3);
        unsigned char *shrunk = realloc(rgba, (size_t)ow * oh * 3);
        *pixels = shrunk ? shrunk : rgba;
        *width = ow;
        *height = oh;
        return IMG_OK;
    }
    rgba = malloc((size_t)w * h * 4);
    rows = malloc(sizeof(png_bytep) * (size_t)h);
    if (!rgba || !rows) png_error(png, "out of memory for the image");
    for (int y = 0; y < h; y++) rows[y] = rgba + (size_t)y * w * 4;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info_ptr, NULL);
    free(rows);
    // Alpha composited on white, in place: RGBA → RGB.
    unsigned char *src = rgba, *dst = rgba;
    for (size_t i = 0; i < (size_t)w * h; i++, src += 4, dst += 3) {
        unsigned a = src[3];
        dst[0] = (unsigned char)((src[0] * a + 255 * (255 - a) + 127) / 255);
        dst[1] = (unsigned char)((src[1] * a + 255 * (255 - a) + 127) / 255);
        dst[2] = (unsigned char)((src[2] * a + 255 * (255 - a) + 127) / 255);
    }
    *pixels = rgba;
    *width = w;
    *height = h;
    return IMG_OK;
}

typedef struct {
    unsigned char *data;
    size_t size, capacity;
} writer;

static void on_write(png_structp png, png_bytep bytes, png_size_t length) {
    writer *w = (writer *)png_get_io_ptr(png);
    if (w->size + length > w->capacity) {
        size_t capacity = w->capacity ? w->capacity * 2 : 65536;
        while (capacity < w->size + length) capacity *= 2;
        unsigned char *grown = realloc(w->data, capacity);
        if (!grown) png_error(png, "out of memory");
        w->data = grown;
        w->capacity = capacity;
    }
    memcpy(w->data + w->size, bytes, length);
    w->size += length;
}

static void on_flush(png_structp png) { (void)png; }

int img_png_encode(const unsigned char *rgb, int width, int height, const unsigned char *icc, size_t icc_size,
                   unsigned char **out, size_t *out_size, img_result *result) {
    reader r = { NULL, 0, 0, result };
    writer wr = { NULL, 0, 0 };
    *out = NULL;
    *out_size = 0;
    result->status = IMG_OK;
    result->message[0] = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &r, on_error, on_warning);
    if (!png) return result->status = IMG_ENOMEM;
    png_infop info_ptr = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info_ptr);
        free(wr.data);
        return result->status = IMG_ECORRUPT;
    }
    if (!info_ptr) png_error(png, "out of memory");
    png_set_write_fn(png, &wr, on_write, on_flush);
    png_set_IHDR(png, info_ptr, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (icc && icc_size > 0 && icc_size <= 16 << 20)
        png_set_iCCP(png, info_ptr, "ICC profile", PNG_COMPRESSION_TYPE_BASE, (png_const_bytep)icc, (png_uint_32)icc_size);
    png_write_info(png, info_ptr);
    for (int y = 0; y < height; y++) png_write_row(png, (png_const_bytep)(rgb + (size_t)y * width * 3));
    png_write_end(png, info_ptr);
    png_destroy_write_struct(&png, &info_ptr);
    *out = wr.data;
    *out_size = wr.size;
    return IMG_OK;
}
